"""Round 7, second names pass (issue 15): a Chinese word the name vocabulary writes
before a model number is a series word (毛豆 of 毛豆3, so 毛豆三 is 毛豆3), a storage
size spoken or spelt out is its symbol (one terabyte = 1tb), and a bare model number
with a cup-size variant nickname (15超大杯) names the one bare tail of that number and
the nickname's variant. Questions written for these tests, not taken from any labelled
set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from services.core.semantic.lexicon import numbered_synonyms
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # 毛豆3 is listed for "model 3": a Chinese numeral after 毛豆 is the model number.
        ("毛豆三车身多重", "tesla_model_3|weight|"),
        ("毛豆三车长多少", "tesla_model_3|dimensions|"),
        # a storage size in words, or with the unit spelt out
        ("xiaomi 14 price for the one terabyte model", "xiaomi_14|price|storage=1TB"),
        ("iphone 15 price with 256 gigabytes", "iphone_15|price|storage=256GB"),
        # a bare model number + cup-size nickname: the one model of that tail + variant
        ("15大杯屏幕多大", "iphone_15_pro|screen_size|"),
        ("16大杯重量多少", "iphone_16_pro|weight|"),
        ("15超大杯重量多少", "iphone_15_pro_max|weight|"),
    ],
)
def test_names_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


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


def test_spoken_storage_not_a_pronoun(extractor: SemanticExtractor) -> None:
    norm = extractor.normaliser.normalise
    assert norm("the one terabyte version") == "the 1tb version"
    assert norm("two gigabytes") == "2gb"
    assert norm("512 gigs") == "512gb"  # one place reads every spelt-out unit
    assert norm("512 gb") == "512 gb"  # the value forms read it as written
    assert norm("the pro one is nicer") == "the pro one is nicer"


@pytest.mark.parametrize(
    "question",
    [
        # the iPhone 16 line of the catalog has no Pro Max: never the 16 Pro
        "16超大杯重量多少",
    ],
)
def test_nickname_variant_not_sold(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass)
    assert decision.intent == "unknown_product"


def test_bare_nickname_needs_the_number_glued(extractor: SemanticExtractor) -> None:
    # a number that counts something before 大杯 names no phone
    assert cid_of(extractor.decide("两个大杯多少钱")) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # brand + feature word + category word + generation: the one product of the brand
        # and category whose spec text carries the feature and whose names the number
        ("苹果降噪耳机二代重量多少", "airpods_pro_2|weight|"),
        ("苹果降噪豆2代什么芯片", "airpods_pro_2|processor|"),
        ("华为降噪耳机3多少钱", "huawei_freebuds_pro_3|price|"),
    ],
)
def test_description_names(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        "苹果降噪耳机三代重量多少",  # no generation 3 of the brand's earbuds
        "华为降噪耳机2重量多少",  # no earbuds of the brand with a 2 in its names
        "苹果降噪手表9重量多少",  # the brand's watch carries no noise cancellation
        "苹果降噪耳机重量多少",  # no generation: not a description name
    ],
)
def test_description_names_abstain(extractor: SemanticExtractor, question: str) -> None:
    assert cid_of(extractor.decide(question)) is None


def test_short_name_typo_before_the_word_a_name_writes_next() -> None:
    from services.core.semantic.spelling import SpellingCorrector

    speller = SpellingCorrector((), ["Volvo Xc 40", "Kia Niro EV"], english_words={"made": 900})
    assert speller.correct("nioro ev range") == "niro ev range"  # one letter added
    assert speller.correct("nioro range") == "nioro range"  # no name word after it
    # A letter typed twice is a keystroke's slip, read wherever the word stands (round 10).
    assert speller.correct("niiro range") == "niro range"
    assert speller.correct("made 40") == "made 40"  # a common English word stays


def test_short_name_typo_in_the_catalog(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("BYD Hann EV weight")) == "byd_han|weight|"


def test_note_editions() -> None:
    from services.core.semantic.products import note_editions

    assert note_editions("2023 refresh (焕新版), China-market trims") == ("焕新版", "焕新")
    assert note_editions("GPS, aluminium case") == ()


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # the product's own edition word beside its name is part of the name, no trim
        ("Model 3 焕新版重量多少", "tesla_model_3|weight|"),
        ("焕新版 model 3 有多重", "tesla_model_3|weight|"),
        # the edition word and the product's model number name it
        ("焕新3车身多重", "tesla_model_3|weight|"),
        ("特斯拉焕新3的重量", "tesla_model_3|weight|"),
    ],
)
def test_edition_words(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_edition_word_is_no_typo(extractor: SemanticExtractor) -> None:
    # 焕新 (refreshed) is a word of the catalog's note, never respelt as 换新 (exchange)
    assert extractor.normaliser.normalise("焕新版续航") == "焕新版续航"
    assert cid_of(extractor.decide("焕新9多重")) is None  # no product of that number


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # vocabulary: 小Y (the Model Y's nickname), 纯电 / 纯电版 for EV (battery-electric)
        ("特斯拉小Y车身重量", "tesla_model_y|weight|"),
        ("汉纯电版车重多少", "byd_han|weight|"),
        ("比亚迪汉纯电多重", "byd_han|weight|"),
    ],
)
def test_name_vocabulary(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_ev_word_makes_no_other_car_the_han(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("汉兰达纯电版多重")) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # a name ending in its own size, with the size said first
        ("14in M3 MBP how heavy", "macbook_pro_14_m3|weight|"),
        ("14寸 m3 mbp 多重", "macbook_pro_14_m3|weight|"),
    ],
)
def test_size_said_first(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_size_said_first_only_the_own_size(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("16寸 m3 mbp 多重")) is None
