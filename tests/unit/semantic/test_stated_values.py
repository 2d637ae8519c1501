"""Stated values to confirm: a value of another attribute competes with the cue, the noun
beside a stated value is not the question, and the product's own value needs no unit.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import (
    SemanticExtractor,
)
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    "text",
    [
        "iPhone 15 with 512 GB storage, what does it cost?",
        "小米14 512G的存储卖多少钱",
    ],
)
def test_the_noun_beside_a_stated_value_is_not_the_question(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    # Never the storage class: the price is asked (or, if the reader doubts, no fingerprint).
    if isinstance(decision, Fingerprint):
        assert decision.attribute == "price", decision
        assert decision.constraints and decision.constraints[0][0] == "storage"
    else:
        assert isinstance(decision, NoFingerprint), decision


def test_the_noun_alone_beside_its_value_stays_the_question(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("Does the iPhone 15 come with 512 GB storage?")
    assert not (isinstance(decision, Fingerprint) and decision.attribute == "price")


def test_a_bare_amount_to_confirm_is_the_price_itself(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("小米14 512G 售价是4999吗")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "price"
    assert decision.constraints == (("storage", "512GB"),)
    # For an attribute not given in a currency the number stays unexplained.
    other = extractor.decide("小米14 重量是1930吗")
    assert not isinstance(other, Fingerprint), other


def test_a_confirmed_value_of_another_attribute_makes_the_question_ambiguous(
    extractor: SemanticExtractor,
) -> None:
    # 换货 reads an exchange question, "是3年吗" confirms a warranty period: two readings.
    decision = extractor.decide("小米14 换货政策是3年吗")
    assert isinstance(decision, NoFingerprint)
    assert "competes" in decision.reason


def test_a_period_the_policy_itself_has_does_not_compete(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("can I send back an unopened phone within 7 days")) == (
        "null|return_policy|item_state=unopened"
    )


def test_a_value_that_describes_the_thing_asked_about_competes_with_nothing(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("小米14 换货 有3年的吗")
    assert not (isinstance(decision, NoFingerprint) and "competes" in decision.reason)


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("Watch S9 是WR50防水吗", "apple_watch_series_9|water_resistance|"),
        ("X1 Carbon 处理器是酷睿Ultra 7 165U吗", "thinkpad_x1_carbon|processor|"),
        ("小米14用的是第三代骁龙八吗", "xiaomi_14|processor|"),
        ("三星S24出厂是安卓14吗", "samsung_galaxy_s24|operating_system|"),
    ],
)
def test_value_forms_to_confirm(extractor: SemanticExtractor, text: str, cid: str) -> None:
    assert cid_of(extractor.decide(text)) == cid


def test_a_value_in_an_in_box_question_describes_the_item(
    extractor: SemanticExtractor,
) -> None:
    assert cid_of(extractor.decide("小米14盒子里带120W的充电头吗")) == "xiaomi_14|in_box|"
    # In a price question the same number stays a variant we cannot read.
    assert not isinstance(extractor.decide("小米14 120W版多少钱"), Fingerprint)


def test_the_products_own_value_to_confirm_needs_no_unit(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("s24 weight is it 167?")) == "samsung_galaxy_s24|weight|"
    # Another bare number may name a variant (the larger model's screen): no fingerprint.
    assert cid_of(extractor.decide("iphone 16 pro screen size, is it 6.9?")) is None


def test_a_variant_s_own_value_is_understood(extractor: SemanticExtractor) -> None:
    # The named variant's own value, asked to be confirmed without its unit.
    decision = extractor.decide("model y long range range is it 688?")
    assert cid_of(decision) == "tesla_model_y|range|trim=long_range", decision
    # Another number, or no variant named, may be a variant we did not read.
    assert cid_of(extractor.decide("model y long range range is it 612?")) is None
    assert cid_of(extractor.decide("model y range is it 688?")) is None
