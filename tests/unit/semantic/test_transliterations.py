"""Chinese transliterations of variant words: consonant skeletons, a dropped coda l, and
the 加 of "+" read as a variant only after a model number. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.transliteration import (
    Transliterator,
    latin_skeleton,
    syllable_skeleton,
    variant_words,
)
from tests.unit.semantic.decisions import cid_of


def test_consonant_skeletons() -> None:
    assert latin_skeleton("pro") == "pl"
    assert latin_skeleton("max") == "mks"
    assert latin_skeleton("plus") == "pls"
    assert syllable_skeleton("luo") == "l"
    assert syllable_skeleton("liang") == "ln"
    assert syllable_skeleton("a") == ""


def test_variant_words_are_the_latin_words_after_a_model_number() -> None:
    names = ["Phone 7 Pro Max", "Tablet 3 Ultra", "Laptop Air 13 Gen 2"]
    assert variant_words(names) == ["pro", "max", "ultra"]


def test_transliterations_after_a_model_number() -> None:
    common = {"漂亮": 5000, "拍立得": 20}
    t = Transliterator(["pro", "max", "ultra"], common)
    assert t.replace("手机7普洛多重") == "手机7 pro 多重"
    assert t.replace("手机7扑落麦克思电池") == "手机7 pro max 电池"
    # Common words, function characters and longer dictionary words stay.
    assert t.replace("手机7漂亮吗") == "手机7漂亮吗"
    assert t.replace("手机7配了耳机吗") == "手机7配了耳机吗"
    assert t.replace("手机7拍立得") == "手机7拍立得"
    # Only right after a model number or a Latin word.
    assert t.replace("普洛多重") == "普洛多重"


def test_a_transliterated_variant_names_the_variant(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("苹果15扑罗的重量")) == "iphone_15_pro|weight|"
    assert cid_of(extractor.decide("苹果15扑罗迈克斯屏幕多大")) == "iphone_15_pro_max|screen_size|"
    # A variant the catalog does not sell is no fingerprint of the base model.
    assert not isinstance(extractor.decide("小米14扑罗多重"), Fingerprint)


def test_plus_sum_and_dictionary_words_keep_their_jia(extractor: SemanticExtractor) -> None:
    # 加上 is a dictionary word ("together with"): not the S24+.
    decision = extractor.decide("三星s24加上充电器多少钱")
    assert not (isinstance(decision, Bypass) and decision.intent == "unknown_product")


def test_coda_l_skeleton() -> None:
    assert latin_skeleton("ultra") == "ltl"
    assert latin_skeleton("ultra", drop_coda_l=True) == "tl"
    # An l before a vowel is no coda: plus keeps it.
    assert latin_skeleton("plus", drop_coda_l=True) == "pls"


def test_transliterator_reads_plus_only_after_a_number() -> None:
    t = Transliterator(["plus"], {"加价": 500}, vocabulary=["加充电盒"])
    assert "plus" in t.replace("x24加多重")
    assert "plus" not in t.replace("x24加价了吗")
    assert "plus" not in t.replace("x24加充电盒多久")
    assert "plus" not in t.replace("12加512")
    assert "plus" not in t.replace("怎么加多重")
