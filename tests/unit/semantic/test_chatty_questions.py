"""Chatty questions: bypass cues in a clause far from the product, chat question particles,
and a space between Chinese characters ending a clause. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.admission import question_particle_variants
from services.core.semantic.extractor import SemanticExtractor, _clauses
from services.core.semantic.fingerprint import Bypass
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # The asker's own purchase or device, told in passing before the ask.
        ("my cousin picked up a galaxy s24 from u guys last week, how heavy is it", "personal"),
        ("already paid for the iphone 15 yesterday, which colors are there", "personal"),
        ("上礼拜在你们这拿的小米14，充电功率是多少", "personal"),
        ("用了半年的apple watch 9 屏幕花了 保修多久", "personal"),
        ("手上有一台x1 carbon 想问问重量", "personal"),
        ("我姐那台mate 60 pro 续航多久", "personal"),
        ("收到的airpods pro 2 盒子里没有线", "personal"),
        ("s24 ultra 好像漏发了充电线", "personal"),
        # The price or stock of this moment, in chat words.
        ("mate 60 pro how much rn", "realtime"),
        ("小米14 现价多少", "realtime"),
        ("apple watch 9 到手多少", "realtime"),
        ("what's the macbook air m3 going for", "realtime"),
        ("华为gt4 还卖吗 多少钱", "realtime"),
        ("iphone 16 价格还是5999吗", "realtime"),
        ("is the s24 still 799?", "realtime"),
        ("model 3 还有吗 多少钱", "realtime"),
        ("苹果15今年多少钱", "realtime"),  # this year's price is the current one
        # The future: a wait, gonna / 'll, an operating-system version still to come.
        ("x1 carbon 再过半年价格怎么样", "predict"),
        ("is samsung gonna drop the s24 price", "predict"),
        ("it'll get cheaper, the mate 60 right?", "predict"),
        ("will the iphone 15 get ios 20", "predict"),
        ("华为gt4能升鸿蒙5吗 续航多久", "predict"),
        # An indirect comparison, a recommendation asked with a chat particle.
        ("is the apple watch 9 as light as a fitbit", "compare"),
        ("小米14 拍照靠谱不", "recommend"),
    ],
)
def test_chatty_bypass_cues(extractor: SemanticExtractor, question: str, intent: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # "got a question" is no purchase; "after paying" is no future; asking on someone's
        # behalf is no personal data.
        ("got a quick q: how heavy is the model 3?", "tesla_model_3|weight|"),
        ("付款之后会多久发货", "null|delivery_time|"),
        ("帮我妈问一下，小米14多少钱", "xiaomi_14|price|"),
        ("想给老妈买台小米14 屏幕多大", "xiaomi_14|screen_size|"),  # a plan, not a purchase
        # A space between Chinese characters ends the situation clause (a trip next month).
        ("我下个月去旅游 想买个s24 它防水等级是多少", "samsung_galaxy_s24|water_resistance|"),
        # "how much" before a noun asks for that noun's quantity.
        ("how much storage does the iphone 15 have", "iphone_15|storage|"),
        # A name word written in two halves.
        ("think pad x1 carbon weight", "thinkpad_x1_carbon|weight|"),
        ("how much are the air pods pro 2", "airpods_pro_2|price|"),
        # A Chinese numeral after digits is a number of its own (GT4, then 46 mm).
        ("华为手表GT4四十六毫米那款多少钱", "huawei_watch_gt_4|price|case_size=46mm"),
    ],
)
def test_chatty_questions_keep_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_question_particle_variants() -> None:
    assert question_particle_variants("靠谱吗") == ("靠谱吗", "靠谱么", "靠谱嘛", "靠谱不")
    assert "到货没" in question_particle_variants("到货了吗")
    assert "到货了没" in question_particle_variants("到货了吗")
    # Not a question ending in 吗, or too short to carry a word before it.
    assert question_particle_variants("值得") == ("值得",)
    assert question_particle_variants("吗") == ("吗",)


def test_a_space_between_chinese_characters_ends_a_clause() -> None:
    text = "我下周出差 想问下§ 续航多久"
    assert [text[s:e] for s, e in _clauses(text)] == ["我下周出差", "想问下§ 续航多久"]
    # A space next to a number or a Latin word only separates words.
    assert len(_clauses("小米14 屏幕多大")) == 1


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("iphone 15 有没有货 多少钱一台", "realtime"),
        ("s24 能不能再便宜点 多少钱", "realtime"),  # bargaining is about this sale
        ("yo got any s24 ultra left? price?", "realtime"),
        ("the iphone 15, u guys still got it? how much", "realtime"),
        ("mate 60 pro 鸿蒙next 啥时候推", "predict"),
        ("俺家那台小米14 屏幕多大", "personal"),
        ("the airpods pro 2 you sent me have no cable in the box, is that normal", "personal"),
        ("the s24 i got for my birthday, how long is warranty", "personal"),
        ("老爸用的小米14 充电变慢了 充电功率多少", "personal"),  # a kin word without 我
        ("给老妈买的apple watch 9 到了 续航多久", "personal"),
        ("our family car is a model 3 from you guys, whats the range", "personal"),
    ],
)
def test_more_chatty_bypass_cues(extractor: SemanticExtractor, question: str, intent: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent
