"""A time word that belongs to the asker's hypothesis or plan, not to the thing asked: in
a conditional clause (如果明年坏了), pointing back to one (万一坏了…到时候), or in a clause
about the asker that asks nothing (因为下周要出差); and a cue that reads across a word
(要|出差). Real forecasts, and prices, stay predict. Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("要是用坏了去哪里修，到时候是找你们还是找厂家", "null|after_sales_service|"),
        ("如果明年坏了保修吗", "null|warranty|"),
        ("if it breaks in a year is it covered by warranty", "null|warranty|"),
        ("付款后多久发货 因为下个月我要出国", "null|delivery_time|"),
        ("我下周要出差，付款后几天能发货", "null|delivery_time|"),
        ("我下周去海边玩，华为mate60 pro防水吗", "huawei_mate_60_pro|water_resistance|"),
    ],
)
def test_a_time_of_the_askers_hypothesis_or_plan_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "iPhone 15下周会降价吗",
        "到时候会出新款吗",
        "will the iphone 15 get the update next year",
        "如果下周买，到时候iPhone 15会降价吗",
        "要是等到下个月，到时候iPhone 15多少钱",
        "因为明年要出新款，iPhone 15保修多久",
    ],
)
def test_a_forecast_or_a_price_by_then_stays_predict(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "predict"
