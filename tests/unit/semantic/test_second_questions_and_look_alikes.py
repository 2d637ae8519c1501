"""A message whose second sentence asks something of its own (the asker's order, a
price to come, a deal today, advice) is that bypass, while a sentence that only tells the
asker's situation keeps the key; glyphs typed for a name's letters or digits (l5, 6o,
u1tra, xiaomí) read as the name; a topic the asker waves off (不是换货哈) is not asked.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("小米14多重？顺便帮我看看我的订单发了没", "personal"),
        ("苹果16 Pro 电池多大？我想问问下周双十二你们会不会降价。", "predict"),
        ("Mate 60 多少钱？明天下单是不是能便宜两百？", "realtime"),
        ("GT4 有几种表带颜色？我下单选的是黑色，结果寄来的是绿色。", "personal"),
        ("AirPods Pro 2 盒子里有什么？我打开我那盒发现少了根线。", "personal"),
        ("小米14 快充多少瓦？我自己这台充一次要三个小时，总觉得有问题。", "personal"),
        ("开票要什么资料？我想把我之前开的普票作废重开。", "personal"),
        ("发票抬头打错了 帮我补开一张", "personal"),
        ("S24 list price? Do you reckon it will come down after the summer?", "predict"),
        ("MacBook Air M3 storage? would you go 256 or 512 for a student", "recommend"),
        ("Model Y 续航多少？现在下单的话多久能提车？", "realtime"),
    ],
)
def test_the_second_question_makes_it_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # the situation told, not asked, keeps the key
        ("我下个月去出差，小米14续航多久", "xiaomi_14|battery_life|"),
        ("发票能补开吗", "null|invoice|"),
        ("拆封以后还能无理由退货吗", "null|return_policy|item_state=opened"),
        ("不是退货哈，我问换货规则", "null|exchange_policy|"),
        ("你们的电子产品坏了管几年", "null|warranty|"),
        # look-alike glyphs
        ("iPhone l6 多重", "iphone_16|weight|"),
        ("mate 6o pro 多重", "huawei_mate_60_pro|weight|"),
        ("galaxy s24 u1tra 多重", "samsung_galaxy_s24_ultra|weight|"),
        ("iphone 15 pr0 多重", "iphone_15_pro|weight|"),
        ("Xiaomí 14 多重", "xiaomi_14|weight|"),
    ],
)
def test_the_key_stays(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert decided_cid(extractor, question) == cid
