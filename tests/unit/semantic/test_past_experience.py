"""A clause that a past time opens (上次, 之前, "last time") and that asks nothing tells
what the asker did before: its real-time cues (试驾, 优惠) are history, so a catalog
product's fixed spec asked elsewhere is everyone's answer. A price or a policy stays
real-time, and a present cue elsewhere still counts. Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("上回去门店试驾忘了看，特斯拉Model Y中控屏几寸", "tesla_model_y|screen_size|"),
        ("之前去体验店试驾过，比亚迪汉车身多长", "byd_han|dimensions|"),
    ],
)
def test_a_past_clause_leaves_the_fixed_spec_asked(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "上回去门店试驾过，特斯拉Model Y多少钱",
        "上回去门店试驾过 今天特斯拉Model Y中控屏几寸",
        "试驾的时候忘了看 特斯拉Model Y中控屏几寸",
    ],
)
def test_a_price_a_present_cue_or_no_past_time_stays_realtime(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"
