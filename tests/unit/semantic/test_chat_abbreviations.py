"""Chat abbreviations (idk, tbh, gf, bf) are chat words, not unknown words of a variant.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("my gf wants to know how big the xiaomi 14 screen is tbh", "xiaomi_14|screen_size|"),
        ("idk if this matters but how heavy is the macbook air m3", "macbook_air_m3|weight|"),
    ],
)
def test_a_chat_abbreviation_is_understood(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
