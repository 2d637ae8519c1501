""" "i'd rather V than V" tells what the asker prefers to do: its "than" stands between
two verbs and compares no products; with a product, value or attribute word beside it
("i'd rather get storage than ram") it still compares. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_a_preference_between_two_doings_is_no_comparison(
    extractor: SemanticExtractor,
) -> None:
    question = "i'd rather check than guess: does the iphone 15 come with a charger?"
    assert decided_cid(extractor, question) == "iphone_15|in_box|"


def test_a_preference_between_two_specs_still_compares(extractor: SemanticExtractor) -> None:
    question = "i'd rather get storage than ram, is the macbook air m3 256 enough"
    assert decided_bypass(extractor, question) == "compare"
