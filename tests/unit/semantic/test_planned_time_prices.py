"""A time of the asker's own plan dates the question: a fixed spec is the same then
(its key stands), a changing one (a price) by then is a forecast. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass as _intent
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    "question",
    [
        "如果我等到下个月，小米14价格多少",
        "if I wait until next month, how much will the Galaxy S24 be",
        "if I hold off till next month how much is the xiaomi 14",
    ],
)
def test_a_price_at_the_askers_planned_time_is_a_forecast(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "predict"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("我下个月去旅游，小米14多重", "xiaomi_14|weight|"),
        ("我下周要出差，小米14屏幕多大", "xiaomi_14|screen_size|"),
    ],
)
def test_a_fixed_spec_at_the_askers_planned_time_keeps_its_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert _key(extractor, question) == cid
