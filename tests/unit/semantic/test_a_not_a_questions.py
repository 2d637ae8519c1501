"""是不是 is the A-not-A question "is it …", not the negation 不是 that sets a cue aside:
是不是缺货了 asks about the stock. Questions written for these tests."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass


def test_a_not_a_question_keeps_its_stock_cue(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "小米14黑色的是不是缺货了") == "realtime"
