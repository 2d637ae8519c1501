"""Several values of a key are examples of the answer when the question asks, by its own
word, the spec that lists that key's values ("what storage options …, 256 or 512?");
asked of any other attribute (a price) they still compare. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_values_of_the_listed_spec_are_examples(extractor: SemanticExtractor) -> None:
    question = "which storage options can i pick for the xiaomi 14? 256 and 512 only?"
    assert decided_cid(extractor, question) == "xiaomi_14|storage|"


def test_values_beside_another_attribute_still_compare(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "xiaomi 14 price, 256 and 512?") == "compare"
