"""A recent-time word (最近, 这段时间) that dates what the asker or someone of theirs has
been doing (我妈最近在考虑…) is no real-time question; 最近多少钱 and 最近有优惠吗 are.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("我妈最近在考虑小米14，屏幕多大", "xiaomi_14|screen_size|"),
        ("我们家这段时间在看比亚迪汉，续航多少公里", "byd_han|range|"),
    ],
)
def test_a_time_of_the_askers_shopping_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize("question", ["小米14最近多少钱", "我最近在看小米14，有优惠吗"])
def test_set_aside_but_the_moment_asked_stays_realtime(
    extractor: SemanticExtractor, question: str
) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert decided_cid(extractor, "我妈最近在考虑小米14，屏幕多大") == "xiaomi_14|screen_size|"
    assert decided_bypass(extractor, question) == "realtime"
