"""A clause about the asker's own unit of the product asked (我这台, 寄给我的那块, "mine",
"my unit", "the one I've been using") is about their device: it keeps the question
personal even when another clause asks a plain spec, unlike a clause about something
else the asker has or did ("我买了个磁吸底座"). Questions written for these tests, not
taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "Galaxy S24 的电池是多大的？我这台才用半年，下午就没电了",
        "请问 Watch GT 4 续航多久？寄给我的那块两天就没电了",
        "What's the weight of the Xiaomi 14? Mine feels heavier than my old phone did.",
        "Is the AirPods Pro 2 case water resistant? The one I have got wet at the beach.",
        "MacBook Air M3 屏幕多大？我收到的好像比图片上小",
    ],
)
def test_a_clause_about_the_askers_own_unit_keeps_it_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_a_clause_about_something_else_of_the_askers_leaves_the_spec(
    extractor: SemanticExtractor,
) -> None:
    assert (
        decided_cid(extractor, "我买了个磁吸底座，Galaxy S24 无线充几瓦")
        == "samsung_galaxy_s24|charging_power|method=wireless"
    )


@pytest.mark.parametrize(
    "question",
    [
        "比亚迪汉续航多少？我家那辆冬天只能跑四百",
        "AirPods Pro 2 单次能听多久？我的才两个小时就没电",
        "Galaxy S24 有几种颜色？我上周买的那台发错颜色了",
        "Galaxy S24 保修多久？我的是去年在你们这买的",
    ],
)
def test_a_second_part_about_the_askers_own_unit_keeps_it_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"
