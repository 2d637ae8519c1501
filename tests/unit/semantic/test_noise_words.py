"""Chat words are noise, while an unknown Latin word still ends in no fingerprint.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("Xiaomi 14 weight pls", "xiaomi_14|weight|"),
        ("MacBook Air M3 price thx", "macbook_air_m3|price|"),
        ("hi, iPhone 15 screen size plz", "iphone_15|screen_size|"),
    ],
)
def test_chat_words_are_noise(extractor: SemanticExtractor, text: str, cid: str) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_an_unknown_latin_word_still_ends_in_no_fingerprint(
    extractor: SemanticExtractor,
) -> None:
    assert not isinstance(extractor.decide("Xiaomi 14 weight zqxv"), Fingerprint)


def test_an_unknown_latin_word_means_no_fingerprint(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iPhone 15 Pro mx weight")
    assert isinstance(decision, NoFingerprint), decision
    assert isinstance(extractor.decide("iPhone 15 Pro weight"), Fingerprint)
