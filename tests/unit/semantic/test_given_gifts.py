"""A gift the asker gives: one they tell of in a relative clause ("a gift I'm choosing")
or one a purchase is for ("for a birthday gift"); a free gift is the shop's. Questions
written for these tests."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


def test_a_gift_the_asker_tells_of_is_not_a_promotion(extractor: SemanticExtractor) -> None:
    question = (
        "One more thing about a gift I'm choosing: "
        "does the iPhone 15 come with a charger in the box?"
    )
    assert decided_cid(extractor, question) == "iphone_15|in_box|"


def test_a_purchase_for_a_gift_is_not_a_promotion(extractor: SemanticExtractor) -> None:
    question = "What's the price of the iPhone 15? It's for a birthday gift."
    assert decided_cid(extractor, question) == "iphone_15|price|"
