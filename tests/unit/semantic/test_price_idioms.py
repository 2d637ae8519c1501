"""English price idioms ("what does it sell for", "retails for") ask the list price as
"how much" does. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("what does the macbook air m3 sell for", "macbook_air_m3|price|"),
        ("hi, what does the 512GB xiaomi 14 retail for?", "xiaomi_14|price|storage=512GB"),
    ],
)
def test_a_price_idiom_asks_the_price(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
