"""The second reader's stricter agreement and the first-person / future bypasses
(questions written for these tests, not taken from any labelled set)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint
from services.harness.evaluation.generated import write_generated
from services.harness.evaluation.semantic import per_question, read_queries
from services.paths import DEMO_DATA_DIR


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # Names rebuilt from the lexicon's synonym groups: the reader now agrees.
        ("苹果手机15多重", "iphone_15|weight|"),
        ("mba m3多重", "macbook_air_m3|weight|"),
        # A number followed by the spec's unit types the attribute for the reader too.
        ("苹果15 Pro是187g吗", "iphone_15_pro|weight|"),
    ],
)
def test_reader_agrees_where_the_rules_are_right(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_reader_alone_vetoes_an_attribute_it_sees_no_sign_of(
    extractor: SemanticExtractor,
) -> None:
    text = extractor.normaliser.normalise("iPhone 15 退货政策")
    verdict = extractor.reader.read(text, "iphone_15", "weight")
    assert not verdict.agrees
    assert extractor.reader.read(text, "iphone_15", "return_policy").agrees


def test_constraint_echo_reads_values_fuzzily_but_not_from_attribute_words(
    extractor: SemanticExtractor,
) -> None:
    reader = extractor.reader
    assert "wireless" in reader.echoed_values("iphone 15 用无线的充多少瓦", "method")
    assert not reader.echoed_values("charging power for iphone 15", "method")


def test_an_unknown_latin_word_means_no_fingerprint(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iPhone 15 Pro mx weight")
    assert isinstance(decision, NoFingerprint), decision
    assert isinstance(extractor.decide("iPhone 15 Pro weight"), Fingerprint)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("我老婆的苹果15保修多久", "personal"),
        ("我有一台MacBook Air M3，保修多久", "personal"),
        ("I have an iPhone 15, what's the warranty?", "personal"),
        ("my wife's iPhone 15 screen cracked, is it covered?", "personal"),
        ("Bought an iPhone 15 here last week, battery life is bad", "personal"),
        ("I'm using a Galaxy S24, how fast does it charge?", "personal"),
        ("前两天入了一台Mate 60，保修多久", "personal"),
        ("小米14会推送新系统吗", "predict"),
        ("Is the Mate 60 getting HarmonyOS 5?", "predict"),
        ("Does Apple plan to update the AirPods Pro 2 firmware?", "predict"),
    ],
)
def test_first_person_and_future_questions_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


def test_generated_questions_get_no_wrong_fingerprint(
    extractor: SemanticExtractor, tmp_path: Path
) -> None:
    out = tmp_path / "generated.jsonl"
    written = write_generated(DEMO_DATA_DIR, DEMO_DATA_DIR / "semantic_lexicon.json", out)
    queries = read_queries(out)
    assert written == len(queries) > 1000
    kinds = {json.loads(line)["id"].rstrip("0123456789") for line in out.read_text().splitlines()}
    assert kinds == {
        "nick",
        "unit",
        "confirm",
        "policy",
        "personal",
        "predict",
        "realtime",
        "squeezed",
        "typo",
    }
    scores = per_question(queries, [extractor.decide(q.text) for q in queries])
    assert scores["wrong_count"] == 0
    assert scores["leaked_count"] == 0
    assert scores["right"] >= 0.95


def test_attribute_words_match_homophones_of_any_tone(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("苹果15官方包修期是几年")  # 包 bao1 typed for 保 bao3
    assert isinstance(decision, Fingerprint)
    assert decision.cid == "iphone_15|warranty|"
    # A bypass word is not attribute vocabulary: 卖完 (sold out) stays itself.
    assert isinstance(extractor.decide("苹果15卖完了吗"), Bypass)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Apple Watch 9 battery life", "apple_watch_series_9|battery_life|"),
        ("苹果手表9多重", "apple_watch_series_9|weight|"),
        ("Apple Watch 10多重", None),  # not sold here
    ],
)
def test_a_series_word_may_be_left_out(
    extractor: SemanticExtractor, text: str, expected: str | None
) -> None:
    decision = extractor.decide(text)
    if expected is None:
        assert not isinstance(decision, Fingerprint), decision
    else:
        assert isinstance(decision, Fingerprint), decision
        assert decision.cid == expected


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("AirPods Pro gen 2 price", "airpods_pro_2|price|"),
        ("thinkpad x1c 12代多重", "thinkpad_x1_carbon|weight|"),
        ("特斯拉Y续航多少", "tesla_model_y|range|"),
    ],
)
def test_generation_words_and_dropped_model_words(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_a_repair_never_competes_with_a_word_as_typed(extractor: SemanticExtractor) -> None:
    # 有现 sounds like 有线 (wired), but 现货 (in stock) is a word as typed: realtime.
    decision = extractor.decide("苹果15蓝色有现货吗")
    assert isinstance(decision, Bypass) and decision.intent == "realtime", decision
    # Where the typed word shares only unchanged characters, the repair stands.
    wired = extractor.decide("苹果15有现充电多少瓦")
    assert isinstance(wired, Fingerprint), wired
    assert wired.cid == "iphone_15|charging_power|method=wired"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("苹果15近期价格", "realtime"),
        ("what's the current iPhone 15 price", "realtime"),
        ("Is the blue iPhone 15 available?", "realtime"),
        ("Is iOS 19 coming to the iPhone 15?", "predict"),
    ],
)
def test_everyday_realtime_and_future_wording(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


def test_available_colours_stay_a_spec_question(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("Which colors are available for the iPhone 15?")
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "iphone_15|colors|"
