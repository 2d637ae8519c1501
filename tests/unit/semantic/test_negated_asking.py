"""A realtime cue the asker rules out with a negated verb of asking, telling or needing
between the negation and the cue (不是问优惠, 不用跟我说活动, "not asking about deals"):
the question is the plain one. A bare question about the cue still asks it. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14 512g卖多少（不是问优惠，就问原价）", "xiaomi_14|price|storage=512GB"),
        ("iPhone 15官方定价多少 不用跟我说活动", "iphone_15|price|"),
        ("华为mate60 pro官网价多少钱，不要跟我讲什么促销", "huawei_mate_60_pro|price|"),
        ("xiaomi 14 list price please, not asking about deals", "xiaomi_14|price|"),
        ("iphone 15 list price, i don't need any coupon", "iphone_15|price|"),
        ("i wasn't asking about discounts, what's the xiaomi 14 list price", "xiaomi_14|price|"),
    ],
)
def test_a_cue_after_a_negated_verb_of_asking_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "小米14有没有优惠",
        "iphone 15 any discount right now",
        "不是说iPhone 15有活动吗",
        "不是问原价，是问iPhone 15优惠多少",
    ],
)
def test_a_cue_the_asker_asks_about_stays_realtime(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"
