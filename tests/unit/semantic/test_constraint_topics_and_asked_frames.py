"""Two readings of the attribute asked. A constraint value whose phrase holds its own
attribute's word ("battery warranty": the coverage, and the warranty asked) still names
that attribute when another cue competes with it. A time frame the question ends on
(还在保修期内吗, "still within the warranty?") is what it asks, not when it is set. A
screen measured in centimetres is the screen's size, not the body's dimensions. A cue
that is a whole question of its own, with another question after it, is asked in its own
right: no other cue outranks it, and two attributes asked give no fingerprint.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("byd han battery warranty mileage", "byd_han|warranty|coverage=battery"),
        ("tesla model y battery warranty km limit", "tesla_model_y|warranty|coverage=battery"),
        ("如果小米14用了八个月坏了，还在保修期内吗", "xiaomi_14|warranty|"),
        ("iphone 16 after 8 months, still within warranty?", "iphone_16|warranty|"),
        ("保修期内坏了找谁修", "null|after_sales_service|"),
        # past the period: the repair after it is asked
        ("超过保修期维修要钱吗", "null|after_sales_service|"),
        ("what does a repair cost after the warranty has expired", "null|after_sales_service|"),
        ("耳机试戴过还能退吗", "null|return_policy|item_state=opened"),
        ("小米14显示屏多少厘米", "xiaomi_14|screen_size|"),
        ("xiaomi 14 display in cm", "xiaomi_14|screen_size|"),
        ("小米14机身多少厘米", "xiaomi_14|dimensions|"),
        ("小米14带充电器吗，多少瓦", None),
        ("小米14的充电器多少瓦", "xiaomi_14|charging_power|"),
        ("未开封退货要运费吗", "null|return_policy|item_state=unopened"),
    ],
)
def test_the_attribute_asked(extractor: SemanticExtractor, question: str, cid: str | None) -> None:
    assert cid_of(extractor.decide(question)) == cid
