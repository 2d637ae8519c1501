"""English clippings and vowel-dropped words (perf, pwr, chrg, btry) read as the one
vocabulary word they abbreviate, and the chat "r" for "are". Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.spelling import SpellingCorrector
from tests.unit.semantic.decisions import decided_cid


def test_clipping_and_consonants_of_one_word() -> None:
    corrector = SpellingCorrector(["performance", "power", "battery", "charge", "charging"])
    assert corrector.correct("perf") == "performance"
    assert corrector.correct("pwr") == "power"
    assert corrector.correct("btry") == "battery"
    assert corrector.correct("chrg") == "charge"
    # "char" begins both charge and charging: two words fit, the text stays
    assert corrector.correct("chrgs char") == "chrgs char"


def test_an_english_word_or_a_name_word_stays() -> None:
    corrector = SpellingCorrector(["performance"], ["perfx"], english_words={"perfume": 10})
    assert corrector.correct("perfx") == "perfx"
    corrector = SpellingCorrector(["performance"], english_words={"perf": 1})
    assert corrector.correct("perf") == "perf"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("model y perf 续航多少", "tesla_model_y|range|trim=performance"),
        ("iphone 15 btry life", "iphone_15|battery_life|"),
        ("how much r the xiaomi 14", "xiaomi_14|price|"),
    ],
)
def test_abbreviations_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert decided_cid(extractor, question) == cid
