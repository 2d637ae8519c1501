"""A count of occasions (第一次买, "my 1st time") is how often the asker did something, no
value of a product. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("我是第一次买小米，小米14电池容量多大", "xiaomi_14|battery_capacity|"),
        (
            "this is my 1st time buying apple, how big is the iphone 15 screen",
            "iphone_15|screen_size|",
        ),
    ],
)
def test_an_occasion_count_is_no_value(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_set_aside_but_a_bare_number_still_is_not_understood(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "我是第一次买小米，小米14电池容量多大")
        == "xiaomi_14|battery_capacity|"
    )
    assert decided_cid(extractor, "小米14电池容量多大 第二个1") is None
