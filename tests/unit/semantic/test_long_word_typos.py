"""A long word one letter off a dictionary word (seperately) is that word misspelt, plain
English the rules may read past; a short one near a vocabulary word ("promx") stays
unknown. Clipped forms (tech) are the words they clip. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


def test_a_long_misspelt_word_is_plain_english(extractor: SemanticExtractor) -> None:
    question = "how heavy is the macbook air m3? i'd carry it seperately from my bag"
    assert decided_cid(extractor, question) == "macbook_air_m3|weight|"


def test_a_clipped_word_is_the_word_it_clips(extractor: SemanticExtractor) -> None:
    question = "i'm not a tech person, how heavy is the macbook air m3?"
    assert decided_cid(extractor, question) == "macbook_air_m3|weight|"
