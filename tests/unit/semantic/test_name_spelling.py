"""Spelling repair of name words: short misspelt words, a letter typed twice, x written as
ks, look-alike letters, and repairs that never compete with a word as typed. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.normalise import TextNormaliser
from services.core.semantic.spelling import SpellingCorrector
from tests.unit.semantic.decisions import cid_of, decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("tsela model y", "tesla model y"),  # two letters swapped
        ("mtae 60", "mate 60"),
        ("iphone 16 por", "iphone 16 pro"),  # three letters, swapped
        ("galaxy s24 ulra", "galaxy s24 ultra"),  # a letter dropped, from four letters
        ("apple wtch s9", "apple watch s9"),
    ],
)
def test_short_name_words_are_repaired(typed: str, meant: str) -> None:
    corrector = SpellingCorrector(
        [], ["Tesla Model Y", "Mate 60", "iPhone 16 Pro", "Galaxy S24 Ultra", "Apple Watch S9"]
    )
    assert corrector.correct(typed) == meant


def test_short_name_repair_leaves_words_and_ties_alone() -> None:
    corrector = SpellingCorrector([], ["Mate 60", "Mute 9", "Pro"], english_words={"mete": 900})
    assert corrector.correct("mete") == "mete"  # an English word
    assert corrector.correct("mtte") == "mtte"  # mate and mute both one edit away
    assert corrector.correct("rp") == "rp"  # two letters: too short to tell


def test_a_short_word_is_not_stretched_to_a_three_letter_name_word() -> None:
    corrector = SpellingCorrector([], ["iPhone 15 Pro", "BYD Han"])
    assert corrector.correct("prob") == "prob"  # "probably", not "pro"
    assert corrector.correct("hamn") == "hamn"  # one letter added: not on its own
    # A letter typed twice is a keystroke's slip, read as the name word.
    assert corrector.correct("hann") == "han"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # A name word with one letter typed twice, or x spelt out as it sounds (ks).
        ("iphone 15 pro maxx how heavy", "iphone_15_pro_max|weight|"),
        ("iphone 16 proo screen size", "iphone_16_pro|screen_size|"),
        ("mate 60 proo weight", "huawei_mate_60_pro|weight|"),
        ("what chip is in the iphone 15 pro maks", "iphone_15_pro_max|processor|"),
        # The product's own value, stated after the attribute word, not after "is".
        ("airpods pro 2 rrp 1899 right?", "airpods_pro_2|price|"),
        ("is the airpods pro 2 list price 1899", "airpods_pro_2|price|"),
        # A Chinese numeral before a unit word of the vocabulary is a measure.
        ("x1 carbon大概二公斤吗", "thinkpad_x1_carbon|weight|"),
        ("x1 carbon是不是一公斤多一点", "thinkpad_x1_carbon|weight|"),
    ],
)
def test_now_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        # A typo two letters away, or a plural, stays unread.
        "iphone 15 pro maxxx price",
        "iphone 15 pro maxs price",
        # A number that is not the product's own value may name a variant: abstain.
        "airpods pro 2 rrp 1999 right?",
        "airpods pro 2 price 1899 or 1999?",
        # A price by storage has no one own value to confirm.
        "galaxy s24 ultra list price 9999 right?",
        # A numeral before a time word stays a count (no measure read from it).
        "小米14充电一小时能充满吗",
    ],
)
def test_near_cases_stay_unread(extractor: SemanticExtractor, question: str) -> None:
    assert decided_cid(extractor, question) is None


def test_a_variant_we_do_not_sell_stays_unknown(extractor: SemanticExtractor) -> None:
    # maks is max, and the iPhone 16 has no Pro Max in the catalog.
    assert decided_bypass(extractor, "how heavy is the iphone 16 pro maks") == "unknown_product"


def test_doubled_letter_and_spelt_out_x_need_one_fit() -> None:
    corrector = SpellingCorrector(["Max", "Pro", "Plus"], ["Phone Max", "Phone Pro", "Plus"])
    assert corrector.correct("phone maxx") == "phone max"
    assert corrector.correct("phone maks") == "phone max"
    assert corrector.correct("phone pluss") == "phone plus"
    # "matt": mat with its t doubled, and matte with its e dropped; two fits, left alone
    two = SpellingCorrector(["Mat", "Matte"], ["Phone Mat", "Phone Matte"])
    assert two.correct("phone matt") == "phone matt"


def test_look_alike_letters_only_where_no_name_writes_them() -> None:
    assert TextNormaliser(["联想"]).normalise("联想l14多重") == "联想114多重"
    # a catalog that sells an L14 keeps the letter
    assert TextNormaliser(["联想"], names=["联想L14"]).normalise("联想l14多重") == "联想l14多重"
    assert TextNormaliser(["小米"]).normalise("小米lol") == "小米lol"


def test_short_name_typo_before_the_word_a_name_writes_next() -> None:
    from services.core.semantic.spelling import SpellingCorrector

    speller = SpellingCorrector((), ["Volvo Xc 40", "Kia Niro EV"], english_words={"made": 900})
    assert speller.correct("nioro ev range") == "niro ev range"  # one letter added
    assert speller.correct("nioro range") == "nioro range"  # no name word after it
    # A letter typed twice is a keystroke's slip, read wherever the word stands.
    assert speller.correct("niiro range") == "niro range"
    assert speller.correct("made 40") == "made 40"  # a common English word stays


def test_short_name_typo_in_the_catalog(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("BYD Hann EV weight")) == "byd_han|weight|"


def test_a_repair_never_competes_with_a_word_as_typed(extractor: SemanticExtractor) -> None:
    # 有现 sounds like 有线 (wired), but 现货 (in stock) is a word as typed: realtime.
    decision = extractor.decide("苹果15蓝色有现货吗")
    assert isinstance(decision, Bypass) and decision.intent == "realtime", decision
    # Where the typed word shares only unchanged characters, the repair stands.
    wired = extractor.decide("苹果15有现充电多少瓦")
    assert isinstance(wired, Fingerprint), wired
    assert wired.cid == "iphone_15|charging_power|method=wired"
