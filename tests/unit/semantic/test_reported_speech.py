"""A cue inside reported speech that asks nothing (我同事说…很好看, 网上的说法都不一样) is
what others claim, not the asker's request for advice or a comparison; "你说哪个好看"
asks. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("我同事说小米14的白色很好看，小米14有哪些颜色", "xiaomi_14|colors|"),
        ("网上的说法都不一样，小米14电池容量多大", "xiaomi_14|battery_capacity|"),
    ],
)
def test_what_others_said_is_set_aside(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_set_aside_but_asking_someones_opinion_stays_recommend(
    extractor: SemanticExtractor,
) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "网上的说法都不一样，小米14电池容量多大")
        == "xiaomi_14|battery_capacity|"
    )
    assert decided_bypass(extractor, "你说小米14哪个颜色好看") == "recommend"
