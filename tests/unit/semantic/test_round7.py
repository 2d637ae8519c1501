"""Third pass of round 5: a Chinese numeral glued to a Latin unit is a measure; the noun of
a stated value's key names the variant when another cue asks the question; a document
the asker had issued at a past time is personal (questions written for these tests, not
taken from any labelled set)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint


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
    ("text", "storage"),
    [
        ("小米14 五百一十二G 卖多少钱", "512GB"),
        ("mbp14 m3 一T 要多少钱", "1TB"),
    ],
)
def test_a_numeral_storage_is_kept_as_the_price_constraint(
    extractor: SemanticExtractor, text: str, storage: str
) -> None:
    decision = extractor.decide(text)
    # Without the numeral read, the price of the base model would be planted here.
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "price"
    assert ("storage", storage) in decision.constraints


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


@pytest.mark.parametrize(
    "text",
    ["上次开的发票能重开吗", "前几天申请的换货怎么样了", "我上个月办的以旧换新到哪一步了"],
)
def test_something_issued_for_the_asker_at_a_past_time_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == "personal", decision


@pytest.mark.parametrize(
    ("text", "product"),
    [("毛豆Y多重", "tesla_model_y"), ("毛豆3 长宽高多少", "tesla_model_3")],
)
def test_the_common_nickname_of_a_tesla_model_names_it(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


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


def test_mi_is_the_xiaomi_series_word(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("mi14 屏幕多大")
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == "xiaomi_14"


def test_a_compare_word_inside_a_longer_vocabulary_phrase_is_not_a_comparison(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("If the price falls later, will you refund the difference?")
    assert not (isinstance(decision, Bypass) and decision.intent == "compare"), decision
    # Outside such a phrase the word still compares.
    other = extractor.decide("what's the difference between iPhone 15 and iPhone 16")
    assert isinstance(other, Bypass) and other.intent == "compare", other


def test_a_negated_second_value_is_not_a_second_value(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("freebuds pro3 听歌能用几个小时 不算充电盒")
    assert isinstance(decision, Fingerprint), decision
    assert decision.constraints == (("context", "audio_playback"),)
    # With the only value negated, the one meant stays unknown.
    alone = extractor.decide("freebuds pro3 续航几小时 不算充电盒")
    assert not isinstance(alone, Fingerprint), alone


def test_a_bare_amount_to_confirm_is_the_price_itself(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("小米14 512G 售价是4999吗")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "price"
    assert decision.constraints == (("storage", "512GB"),)
    # For an attribute not given in a currency the number stays unexplained.
    other = extractor.decide("小米14 重量是1930吗")
    assert not isinstance(other, Fingerprint), other
