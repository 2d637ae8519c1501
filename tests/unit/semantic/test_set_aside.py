"""Cues of a bypass intent that a question carries without meaning it (the
``SET_ASIDE_TESTS`` table): each test on its own, and the gate read past them in turn.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.admission import SET_ASIDE_TESTS, CueContext, only_other_words
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from services.core.semantic.phrases import Hit


def _context(text: str, phrases: list[Hit], adverbs: set[tuple[int, int]]) -> CueContext:
    return CueContext(text, phrases, lambda: frozenset(adverbs))


def test_a_compare_cue_inside_a_multi_word_attribute_phrase_is_that_phrases_word() -> None:
    text = "do you refund the difference if it drops"
    phrase = Hit("strong:price_protection", 7, 28, "refund the difference")
    cue = Hit("compare", 18, 28, "difference")
    assert only_other_words([cue], _context(text, [phrase], set()))


def test_cues_set_aside_in_different_ways_are_all_set_aside() -> None:
    # One compare cue inside a phrase, the other a degree adverb: neither compares.
    text = "xx refund the difference 比较小"
    phrase = Hit("strong:price_protection", 3, 24, "refund the difference")
    inside = Hit("compare", 14, 24, "difference")
    adverb = Hit("compare", 25, 27, "比较")
    assert only_other_words([inside, adverb], _context(text, [phrase], {(25, 27)}))


def test_a_compare_cue_outside_any_phrase_or_adverb_compares() -> None:
    text = "which is better, refund the difference or not"
    phrase = Hit("strong:price_protection", 17, 38, "refund the difference")
    cue = Hit("compare", 9, 15, "better")
    assert not only_other_words([cue], _context(text, [phrase], set()))


def test_no_cue_is_never_set_aside() -> None:
    for test in SET_ASIDE_TESTS.values():
        assert not test([], _context("", [], set()))


def test_the_degree_adverb_pass_runs_only_when_a_phrase_does_not_settle_it() -> None:
    calls: list[str] = []

    def adverbs() -> frozenset[tuple[int, int]]:
        calls.append("asked")
        return frozenset()

    text = "do you refund the difference"
    phrase = Hit("strong:price_protection", 7, 28, "refund the difference")
    cue = Hit("compare", 18, 28, "difference")
    assert only_other_words([cue], CueContext(text, [phrase], adverbs))
    assert calls == []


def test_a_structural_bypass_is_never_read_past(extractor: SemanticExtractor) -> None:
    # Two products named compare them, whatever the compare word around them means.
    decision = extractor.decide("小米14和iPhone 15的车位比较小吗")
    assert isinstance(decision, Bypass)
    assert decision.intent == "compare"
