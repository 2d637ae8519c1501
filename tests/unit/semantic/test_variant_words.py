"""Variant words: a variant letter the series makes unique or not, a letter set apart by a
space, one-character and cup-size nicknames, and spoken variant words the catalog does
not sell. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.transliteration import (
    Transliterator,
)
from services.semantic.loading import SemanticData, build_extractor
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("text", "product"),
    [
        # The catalog's iPhone 15 has a Pro (and a Pro Max, two words) but no Plus.
        ("苹果15P多少钱", "iphone_15_pro"),
        ("iPhone 16P screen size", "iphone_16_pro"),
        ("mate60p 重量", "huawei_mate_60_pro"),
    ],
)
def test_a_variant_letter_the_series_makes_unique(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text, second_reader=False)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


@pytest.mark.parametrize(
    "text",
    [
        "xiaomi 14p price",  # the Xiaomi 14 has no variant starting with p
        "iPhone 15P max weight",  # the letter and another variant word: not one variant
        "mate 60e 多少钱",  # e is a variant of its own, never an abbreviation
    ],
)
def test_a_variant_letter_the_series_does_not_settle(
    extractor: SemanticExtractor, text: str
) -> None:
    assert not isinstance(extractor.decide(text), Fingerprint)


def test_a_letter_two_variants_of_the_series_share_stays_unread(
    semantic_data: SemanticData,
) -> None:
    catalog = json.loads(json.dumps(semantic_data.catalog, default=dict))
    plus = copy.deepcopy(next(p for p in catalog["products"] if p["id"] == "iphone_15"))
    plus["id"] = "iphone_15_plus"
    plus["names"] = {"zh": ["苹果15 Plus"], "en": ["iPhone 15 Plus"]}
    catalog["products"].append(plus)
    extractor = build_extractor(dataclasses.replace(semantic_data, catalog=catalog))
    assert not isinstance(extractor.decide("iPhone 15P weight"), Fingerprint)
    decision = extractor.decide("iPhone 15 Plus weight")
    assert isinstance(decision, Fingerprint) and decision.product == "iphone_15_plus"


@pytest.mark.parametrize(
    "question",
    [
        # A transliterated or spoken variant word of the policy's list (plus) is another
        # model, never the plain one.
        "小米14普拉斯重量多少",
        "mate60 pro 普拉斯多重",
        "三星24加多重",
        "s24加的电池多大",
    ],
)
def test_spoken_variant_words_we_do_not_sell_are_unknown(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "unknown_product"


def test_one_character_nickname_needs_a_model_number_and_no_verb() -> None:
    t = Transliterator([], {"破损": 500}, vocabulary=["重量"], nicknames={"破": "pro"})
    assert t.replace("苹果15破重量") == "苹果15 pro 重量"
    assert t.replace("苹果15破了") == "苹果15破了"
    assert t.replace("苹果15破损") == "苹果15破损"
    assert t.replace("屏幕破了15天") == "屏幕破了15天"


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


def test_pro_max_a_brand_writes_stays_a_variant(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iphone 16 pro max wireless charging in watts")
    assert isinstance(decision, Bypass) and decision.intent == "unknown_product"


def test_a_nickname_the_product_does_not_carry(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("华为三代降噪耳机超大杯多少钱")) is None
