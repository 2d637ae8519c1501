"""Homophone repair never splits a word the text already has (spelling.py)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    "question",
    ["你们家保修是几年", "你们家保修管多长时间", "请问你们家保修时间", "他们家保修期多长时间"],
)
def test_a_repair_that_would_split_a_typed_word_is_not_made(
    extractor: SemanticExtractor, question: str
) -> None:
    # 家保 sounds like 价保 (price protection), but 保修 (warranty) is typed whole.
    assert decided_cid(extractor, question) == "null|warranty|"


def test_readings_that_share_a_whole_word_still_repair(extractor: SemanticExtractor) -> None:
    # 有现充电 → 有线充电 shares 充电 with 充电多少: both readings agree.
    assert decided_cid(extractor, "苹果15有现充电多少瓦") == "iphone_15|charging_power|method=wired"
