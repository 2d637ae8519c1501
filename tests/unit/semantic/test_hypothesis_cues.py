"""A cue inside a conditional clause that asks nothing is the case the asker imagines (要是
觉得不合适…还能退吗; 如果我买了东西没拆封…): a personal cue only as an imagined purchase.
如果我的订单… stays personal, and a conditional clause that asks (如果要玩游戏，哪个合适)
keeps its cue. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("要是戴了觉得不合适，七天内还能退吗", "null|return_policy|"),
        ("如果我买了东西一直没拆封，能七天无理由退吗", "null|return_policy|item_state=unopened"),
    ],
)
def test_a_cue_of_the_hypothesis_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("如果我的订单没发货，能取消吗", "personal"),
        ("如果要玩游戏，哪个合适", "recommend"),
    ],
)
def test_set_aside_but_an_own_order_or_a_question_in_the_hypothesis_stays(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert decided_cid(extractor, "要是戴了觉得不合适，七天内还能退吗") == "null|return_policy|"
    assert decided_bypass(extractor, question) == intent
