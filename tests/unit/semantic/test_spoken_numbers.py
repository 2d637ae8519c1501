"""Spoken numbers: Chinese numerals before units and after digits, numerals of a numbered
synonym, digit-by-digit numbers and spoken English model numbers after a number head.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.lexicon import number_heads, numbered_synonyms
from services.core.semantic.normalise import TextNormaliser, parse_english_number
from services.core.semantic.spelling import SpellingCorrector


def test_a_chinese_synonym_of_a_numbered_name_takes_chinese_numerals() -> None:
    from services.core.semantic.lexicon import numbered_synonyms

    groups = [["iphone", "爱疯"], ["inch", "英寸"]]
    assert numbered_synonyms(["iPhone 15", "13-inch MacBook"], groups) == ["爱疯"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("二百五十六g版本", "256g版本"),
        ("一t的价格", "1t的价格"),
        ("五千mah", "5000mah"),
        # No unit right after the numeral: an ordinary word stays.
        ("一共多少钱", "一共多少钱"),
    ],
)
def test_chinese_numeral_before_a_latin_unit_is_a_number(
    extractor: SemanticExtractor, text: str, expected: str
) -> None:
    assert extractor.normaliser.normalise(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The measure word between a numeral and a storage unit.
        ("两个t的版本", "2t的版本"),
        # A function word that starts with a numeral ends the model's number.
        ("gt四一般能用几天", "gt4一般能用几天"),
        ("iphone十五一共多少钱", "iphone15一共多少钱"),
        # Without one, the numeral run is read whole.
        ("iphone十五", "iphone15"),
    ],
)
def test_numerals_next_to_measure_and_function_words(
    extractor: SemanticExtractor, text: str, expected: str
) -> None:
    assert extractor.normaliser.normalise(text) == expected


@pytest.fixture(scope="module")
def normaliser() -> TextNormaliser:
    return TextNormaliser(["小米"], [], SpellingCorrector(["小米"]))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gt4四十六毫米", "gt4 46毫米"),
        ("小米14一个T", "小米14 1t"),
        # A multiplier after digits scales them: left as written, never 51000.
        ("5千毫安", "5千毫安"),
    ],
)
def test_a_chinese_numeral_after_digits_is_a_number_of_its_own(
    normaliser: TextNormaliser, text: str, expected: str
) -> None:
    assert normaliser.normalise(text) == expected


def test_digit_strings_become_numbers_only_when_all_bare_digits() -> None:
    n = TextNormaliser([])
    assert "256" in n.normalise("官方价 二五六的")
    # A unit numeral (十) or 两 makes it a word or a spoken amount, not digits.
    assert n.normalise("一五一十") == "一五一十"
    assert n.normalise("三三两两") == "三三两两"
    # Two numerals are too few (三五个).
    assert n.normalise("三五个人") == "三五个人"


def test_spoken_numbers_only_after_a_number_head() -> None:
    normaliser = TextNormaliser([], number_heads=["iphone", "model"])
    assert normaliser.normalise("iphone twenty-four") == "iphone 24"
    assert normaliser.normalise("Model Three range") == "model 3 range"
    assert normaliser.normalise("three models of iphone") == "three models of iphone"
    # a number word that counts the noun after it is no model number
    assert normaliser.normalise("the model three years ago") == "the model three years ago"
    assert normaliser.normalise("iphone two or three") == "iphone two or three"
    # "one" alone is the pronoun
    assert normaliser.normalise("the model one") == "the model one"
    assert normaliser.normalise("airpods second gen") == "airpods 2代"
    assert parse_english_number("sixty") == 60
    assert parse_english_number("twenty four") == 24


def test_number_heads_come_from_the_names() -> None:
    heads = number_heads(["iPhone 15 Pro", "Tesla Model 3", "Galaxy S24", "AirPods Pro 2"])
    assert heads == ["iphone", "model", "pro"]


def test_a_numeral_vocabulary_word_ends_the_number() -> None:
    normaliser = TextNormaliser(["小米"], ["三围"])
    assert normaliser.normalise("小米十四三围") == "小米14三围"
    assert normaliser.normalise("小米十四") == "小米14"


def test_series_word_of_a_numbered_synonym() -> None:
    # The Chinese word written before the number is a series word; a Latin-only or a
    # lettered member (毛豆y) gives none.
    words = numbered_synonyms(["Model 3"], [["model 3", "毛豆3"], ["model y", "毛豆y"]])
    assert "毛豆" in words
    assert "毛豆y" not in words


def test_numeral_after_series_word_keeps_numeral_words(extractor: SemanticExtractor) -> None:
    # 三电 (battery, motor, controller) stays a word after the series word; 百公里 (per
    # hundred km) is no part of the model number.
    norm = extractor.normaliser.normalise
    assert norm("毛豆三 三电质保") == "毛豆3 三电质保"
    assert norm("毛豆三百公里加速几秒") == "毛豆3百公里加速几秒"
    # a numeral word (三电) split by a longer vocabulary word starting inside it (电池)
    assert norm("毛豆三电池多大") == "毛豆3电池多大"
    assert norm("三电池") == "三电池"  # no series word before: left as written
