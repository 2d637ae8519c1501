"""Third pass: unit-settled confirm questions, possession without history, numerals in
brand words (questions written for these tests, not taken from any labelled set)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # A number in a unit only weight uses for these categories: the reader's best
        # three need not include weight, the margin still applies.
        ("is the iPhone 15 171 g?", "iphone_15|weight|"),
        ("is the Xiaomi 14 193 g?", "xiaomi_14|weight|"),
        ("is the AirPods Pro 2 5.3 g?", "airpods_pro_2|weight|"),
        # 三星 after a Latin word is the brand, not the number 3.
        ("runtime for 三星盖乐世 s24", "samsung_galaxy_s24|battery_life|"),
    ],
)
def test_unit_settled_and_numeral_brand_questions_get_their_fingerprint(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_reader_still_vetoes_a_unit_settled_attribute_far_outside_its_margin(
    extractor: SemanticExtractor,
) -> None:
    text = extractor.normaliser.normalise("iPhone 15 退货政策")
    verdict = extractor.reader.read(text, "iphone_15", "weight", attribute_settled=True)
    assert not verdict.agrees


@pytest.mark.parametrize(
    "text",
    [
        "我这台iPhone 15的电池容量",
        "我家小米14的续航",
        "俺的华为Mate 60多重",
        "my new MacBook Air M3 warranty",
        "what is the battery life of our old AirPods Pro 2",
    ],
)
def test_possession_without_history_is_personal(extractor: SemanticExtractor, text: str) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    "text", ["iPhone 15这会儿多少钱", "小米14眼下什么价", "Model Y price as of today"]
)
def test_everyday_now_words_are_realtime(extractor: SemanticExtractor, text: str) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "realtime"


def test_possession_words_alone_do_not_bypass_a_plain_spec_question(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("iPhone 15 new model weight")
    assert not (isinstance(decision, Bypass) and decision.intent == "personal")


@pytest.mark.parametrize(
    "text",
    [
        # Built like a method value (…充 / … charging) but none of the vocabulary's.
        "iPhone 15座充充电功率",  # (磁吸 is wireless for a phone since round 6)
        "iPhone 15 turbo charging power",
        # Built like a trim (…版).
        "Model Y 舒适版多少钱",
    ],
)
def test_a_word_built_like_an_unread_value_gives_no_fingerprint(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, NoFingerprint), decision
    assert "cannot read" in decision.reason


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("iPhone 15充电功率", "iphone_15|charging_power|"),
        ("iPhone 15 charging power", "iphone_15|charging_power|"),
        ("苹果手机15充电多少瓦", "iphone_15|charging_power|"),
        ("iPhone 15 有线充电功率", "iphone_15|charging_power|method=wired"),
    ],
)
def test_vocabulary_words_and_other_words_heads_are_no_unread_value(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_a_squeezed_name_ending_in_a_model_letter_is_split(extractor: SemanticExtractor) -> None:
    # "samsunggalaxys24": the letter before the number is the model code's (s24).
    decision = extractor.decide("samsunggalaxys24 weight")
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "samsung_galaxy_s24|weight|"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("iPhone 15 price next month", "predict"),
        ("Model Y到时候多少钱", "predict"),
        ("iPhone 15 latest price", "realtime"),
        ("Model Y本周价格", "realtime"),
        ("我在用iPhone 15，续航多久", "personal"),
    ],
)
def test_relative_time_and_use_words_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


def test_a_duration_after_a_full_charge_stays_a_spec_question(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("iPhone 15充满电以后能用多久")
    assert not isinstance(decision, Bypass), decision
