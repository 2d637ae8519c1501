"""A clause that puts what came before aside (先不管这个, 这个先不说, "anyway"): the
asker's own situation before it is no part of the question, even where it names an
attribute; a catalog product's spec asked after it is everyone's answer. A policy or a
price stays the asker's own. Questions written for these tests, not taken from any
labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        (
            "我之前买了个无线充电板，先不管这个，小米14无线充多少瓦",
            "xiaomi_14|charging_power|method=wireless",
        ),
        (
            "我前阵子买的快充头 这个先不说了 iPhone 16有线充最大几瓦",
            "iphone_16|charging_power|method=wired",
        ),
    ],
)
def test_a_situation_put_aside_leaves_the_spec_asked_after_it(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "我之前买的无线充电板，小米14无线充多少瓦",
        "我之前买的iPhone 16屏幕碎了，先不管这个，iPhone 16保修多久",
    ],
)
def test_without_a_dismissal_or_for_a_policy_the_situation_stays_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"
