"""Bypass reasons said indirectly (the asker's own purchase timeline told without "my",
stock asked as 有得买, judgements of the asker's needs, a variant renamed in apposition), a
topic the question says it is not about, and bypass cues the asker rules out, denies or
only quotes. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # The asker's own purchase, unboxing or application timeline, no possessive.
        ("收到第5天的AirPods Pro 2，还能换吗", "personal"),
        ("耳机我已经拆封了，能退吗", "personal"),
        ("退货寄回去三天了，怎么还没退款", "personal"),
        ("退款申请我上午提交的，多久到账", "personal"),
        # Stock asked as 有得买.
        ("苹果15 黑色还有的买吗", "realtime"),
        # Judgements of what the asker needs or feels.
        ("小米14 没有无线充，对我影响大吗", "recommend"),
        ("MacBook Air M3 的性能能满足日常剪辑吗", "recommend"),
        ("每天跑高速，Model 3 标准版续航焦虑吗", "recommend"),
    ],
)
def test_indirect_bypass_reasons(extractor: SemanticExtractor, question: str, intent: str) -> None:
    assert decided_bypass(extractor, question) == intent


@pytest.mark.parametrize(
    "question", ["大屏的15 Pro，也就是Pro Max，多重", "iPhone 16 Pro, aka the Pro Max: weight?"]
)
def test_a_variant_in_apposition_to_the_name_renames_the_model(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert not isinstance(decision, Fingerprint), decision


def test_an_apposition_of_the_names_own_words_keeps_the_product(
    extractor: SemanticExtractor,
) -> None:
    assert (
        decided_cid(extractor, "iPhone 16 Pro，也就是pro，几寸屏") == "iphone_16_pro|screen_size|"
    )


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("和价格没关系，小米14 的有线充电功率多少", "xiaomi_14|charging_power|method=wired"),
        ("这不是售后问题，iPhone 15 盒子里有什么", "iphone_15|in_box|"),
        ("不是问价格，是问苹果16 的无线充电功率", "iphone_16|charging_power|method=wireless"),
    ],
)
def test_a_topic_ruled_out_is_not_the_attribute_asked(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # personal: a negated verb of asking, a denied relation, no purchase made yet
        ("不是问我的订单，一般发货要几天", "null|delivery_time|"),
        ("nothing to do with my account — which payment methods do you accept", None),
        ("我还没买过东西，想问发票能开公司抬头吗", "null|invoice|"),
        # realtime, recommend, compare, predict: a telling, advice or comparison declined
        ("不打听现货，小米14 有几种颜色", "xiaomi_14|colors|"),
        ("不用告诉我现在有什么优惠，iPhone 15 屏幕多大", "iphone_15|screen_size|"),
        ("先别给建议，小米14 电池多大", "xiaomi_14|battery_capacity|"),
        ("no recommendations needed: how heavy is the iPhone 15", "iphone_15|weight|"),
        ("不跟别的手机比，苹果15 多重", "iphone_15|weight|"),
        ("没打算等新款，iPhone 15 用的什么芯片", "iphone_15|processor|"),
        # realtime: adjacent cues of one noun phrase share its negation
        (
            "not the current promo price, the list price of the iPhone 15 128GB",
            "iphone_15|price|storage=128GB",
        ),
        # realtime: a time word that dates the asking; a cue only quoted from a page
        ("今天顺便问下，iPhone 15 屏幕多大", "iphone_15|screen_size|"),
        ("today i want to ask: how big is the iPhone 15 screen", "iphone_15|screen_size|"),
        ("页面上写着「今天下单明天发」，一般几天能发货", "null|delivery_time|"),
    ],
)
def test_a_bypass_cue_ruled_out_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str | None
) -> None:
    decision = extractor.decide(question)
    if cid is None:
        assert isinstance(decision, Fingerprint), decision
        assert decision.attribute == "payment_methods"
    else:
        assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # The cue outside the ruled-out clause still counts.
        ("不是问能不能退，我的订单怎么还没发货", "personal"),
        # 不是 alone before a possessive cue denies nothing asked ("this is not my order").
        ("这不是我的订单，退货要几天", "personal"),
        # 不问了: the asker stops asking, the case told after is theirs.
        ("不问了，我的订单到哪了", "personal"),
        # A ruled-out clause that asks itself is no ruling out.
        ("不是问我的订单吗？退货要几天", "personal"),
        # "don't need" is no verb of asking: the order may still be the asker's.
        ("i don't need my order anymore, how do refunds work", "personal"),
        # 不比 is the comparative "no more than", not a comparison declined.
        ("小米14，续航不比别的手机差", "compare"),
        # A quoted cue beside a price still asks the moment's price.
        ("页面上写着「今天特价」，iPhone 15 价格多少", "realtime"),
    ],
)
def test_a_cue_not_clearly_ruled_out_still_bypasses(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent


def test_a_hypothetical_unboxing_is_no_timeline(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "如果我已经拆了的话还能退吗") == (
        "null|return_policy|item_state=opened"
    )


def test_the_second_reader_does_not_weigh_the_words_ruled_out(
    extractor: SemanticExtractor,
) -> None:
    assert decided_cid(
        extractor, "I'm not asking about my own phone — which chip does the Galaxy S24 use?"
    ) == ("samsung_galaxy_s24|processor|")


def test_a_ruled_out_time_does_not_reach_across_the_clause(
    extractor: SemanticExtractor,
) -> None:
    assert decided_cid(extractor, "不是问能不能今天送，就问一般几天到") == ("null|delivery_time|")


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("if my sister bought one here, does the warranty cover a cracked screen", None),
        ("如果我朋友买了iPhone 15不喜欢，几天内能退", None),
    ],
)
def test_someone_elses_purchase_in_a_hypothesis_is_imagined(
    extractor: SemanticExtractor, question: str, cid: str | None
) -> None:
    assert decided_bypass(extractor, question) is None
