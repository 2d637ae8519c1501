"""Constraint values: words built like a value the vocabulary lacks, negated values and
their complements, charging methods by category, packaging words and value phrases that
name their value alone. Questions written for these tests, not taken from any labelled
set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint
from tests.unit.semantic.decisions import cid_of
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    "text",
    [
        # Built like a method value (…充 / … charging) but none of the vocabulary's.
        "iPhone 15座充充电功率",  # (磁吸 is wireless for a phone)
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


@pytest.mark.parametrize(
    "text",
    [
        "I haven't opened the box, can I return it?",
        "I haven’t opened the box, can I return it?",  # typographic apostrophe
        "I didn't open the box, can I return it?",
        "没有拆封的能退吗",
        "不拆封能退吗",
    ],
)
def test_a_negated_value_means_its_complement_by_name(
    extractor: SemanticExtractor, text: str
) -> None:
    # attributes.json lists "opened" and "unopened": "not opened" is "unopened".
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "return_policy"
    assert dict(decision.constraints) == {"item_state": "unopened"}


@pytest.mark.parametrize(
    "text", ["iPhone 15 不用无线充电 功率多少", "iPhone 15 charging power, not wireless"]
)
def test_a_negated_value_without_a_named_complement_stays_unread(
    extractor: SemanticExtractor, text: str
) -> None:
    # wired / wireless are not each other's negation by name: no guess.
    assert not isinstance(extractor.decide(text), Fingerprint)


@pytest.mark.parametrize(
    "text", ["小米14用无线充电板的话功率多少", "Xiaomi 14 charging speed on a charging pad"]
)
def test_a_charging_pad_is_wireless_charging_for_a_phone(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "xiaomi_14|charging_power|method=wireless"


def test_magnetic_charging_of_a_watch_is_not_read_as_wireless(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("华为Watch GT 4 磁吸充电功率多少")
    assert not (isinstance(decision, Fingerprint) and dict(decision.constraints))


@pytest.mark.parametrize(
    "text", ["Can I return it if the plastic film is still on?", "包装还在能退吗"]
)
def test_packaging_words_hint_at_an_item_state_no_rule_reads(
    extractor: SemanticExtractor, text: str
) -> None:
    # The return policy differs for opened and unopened items: a question about the
    # packaging names one of them, so the summary class would be a wrong answer.
    assert not isinstance(extractor.decide(text), Fingerprint)


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


def test_a_negated_second_value_is_not_a_second_value(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("freebuds pro3 听歌能用几个小时 不算充电盒")
    assert isinstance(decision, Fingerprint), decision
    assert decision.constraints == (("context", "audio_playback"),)
    # With the only value negated, the one meant stays unknown.
    alone = extractor.decide("freebuds pro3 续航几小时 不算充电盒")
    assert not isinstance(alone, Fingerprint), alone


@pytest.mark.parametrize(
    "question",
    [
        "if I'm streaming all evening, how long will the galaxy s24 last",
        "galaxy s24 battery when streaming, how many hours",
    ],
)
def test_a_long_word_of_a_value_phrase_echoes_that_value(
    extractor: SemanticExtractor, question: str
) -> None:
    # "streaming" is a word of "streaming video" only: the answer varies by the use,
    # so the unconstrained battery life would be another class's answer.
    decision = extractor.decide(question)
    assert isinstance(decision, NoFingerprint), decision


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # Buying for someone names who it is for, not what they own.
        (
            "want to get a xiaomi 14 for my wife, how much is the 512GB",
            "xiaomi_14|price|storage=512GB",
        ),
        # The product's own value, asked in a clause of its own without "is it".
        ("galaxy s24 screen size, 6.2?", "samsung_galaxy_s24|screen_size|"),
        # "gig" is a way to write GB.
        ("xiaomi 14 official price, the 256 gig one", "xiaomi_14|price|storage=256GB"),
        # Chinese everyday words of unopened / opened packaging.
        ("iphone 15塑封还没撕可以退吗", "null|return_policy|item_state=unopened"),
    ],
)
def test_everyday_constraint_and_value_wording(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_before_negates_a_state(extractor: SemanticExtractor) -> None:
    key = _key(extractor, "can i send the freebuds pro 3 back before opening the box?")
    assert key is not None and key.endswith("item_state=unopened")
