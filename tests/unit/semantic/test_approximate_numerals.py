"""十几 and 好几 are approximate numerals ("ten-odd", "several"), not the question word 几:
十几个小时 in the asker's plan states an amount, it asks no battery life, so the plan's
time word is set aside as in any other plan. Questions written for these tests, not
taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("下周我要开十几个小时的车，比亚迪汉续航多少公里", "byd_han|range|"),
        ("我下个月要坐十几个小时的火车，airpods pro 2续航多久", "airpods_pro_2|battery_life|"),
    ],
)
def test_an_approximate_amount_in_the_askers_plan_asks_nothing(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_set_aside_but_a_plan_that_asks_stays_predict(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "下周我要开十几个小时的车，比亚迪汉续航多少公里") == "byd_han|range|"
    )
    assert decided_bypass(extractor, "下个月airpods pro 2能用几个小时") == "predict"
