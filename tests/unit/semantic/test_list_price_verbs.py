""" "list for" / "lists at" is the verb of a list price, as "retail for" is: "what does
X list for?" asks the price; a "list" noun ("a list for … colors") is not a price.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


def test_do_support_list_for_asks_the_price(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "so what did the xiaomi 14 list at?") == "xiaomi_14|price|"


def test_lists_for_asks_the_price(extractor: SemanticExtractor) -> None:
    assert (
        decided_cid(extractor, "tell me what the xiaomi 14 lists for, please") == "xiaomi_14|price|"
    )


def test_a_list_noun_is_no_price(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "do you have a list for xiaomi 14 colors") == "xiaomi_14|colors|"
