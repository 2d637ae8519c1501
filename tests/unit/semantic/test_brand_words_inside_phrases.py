"""A brand word inside a longer phrase of the attribute vocabulary ("apple pay", a way to
pay) names no product: a question with no other word of a device asks the store. With a
device named (a brand, a category word, a catalog name word) it may ask what the device
supports, and stays unread. Questions written for these tests, not taken from any set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize("text", ["结账的时候能用Apple Pay付吗", "can I pay by apple pay or cash"])
def test_a_brand_word_inside_a_payment_phrase_asks_the_store(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_cid(extractor, text) == "null|payment_methods|"


@pytest.mark.parametrize(
    "text",
    [
        "苹果手表能用apple pay付款吗",
        "iphone上能用apple pay吗",
        "does the Pixel phone take apple pay",
    ],
)
def test_a_device_word_beside_it_keeps_the_question_unread(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_cid(extractor, text) is None


def test_bypass_cues_still_count(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "apple pay现在付款有优惠吗") == "realtime"
