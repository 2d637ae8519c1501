"""Round 7, second cues pass (issue 15): storage sizes with their unit spelled out, 比较
before 多 / 少 as a degree adverb, a beneficiary after get / buy, a first-person clause
of the asker's own purchase beside a product spec, everyday words (OS names, power
brick, who fixes it, a currency), and the second reader: a veto resting on one word is
none, a variant named by a number in a unit is read without it. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # Storage with its unit written out.
        ("galaxy s24 ultra 512 gigabytes how much", "samsung_galaxy_s24_ultra|price|storage=512GB"),
        ("iphone 15 pro with one terabyte, price?", "iphone_15_pro|price|storage=1TB"),
        # 比较多 / 比较少: "fairly much", a clause about the asker, not a comparison.
        ("iphone 15电池多大 我平时刷视频比较多", "iphone_15|battery_capacity|"),
        ("iphone 15电池多大 我平时刷视频比较少", "iphone_15|battery_capacity|"),
        # 比较 before an adjective anywhere in the question: "fairly", no comparison.
        ("小米14机身长度多少mm 我的口袋比较小", "xiaomi_14|dimensions|"),
        # A storage the asker rules out (不够, not enough) is no second value.
        ("小米14 512g多少钱 256不够用", "xiaomi_14|price|storage=512GB"),
        ("xiaomi 14 price for 512gb, since 256 is not enough", "xiaomi_14|price|storage=512GB"),
        # get / buy someone a product: who it is for, not whose it is.
        ("getting my sister the xiaomi 14, what does it cost", "xiaomi_14|price|"),
        ("buying my son a galaxy s24, how much is it", "samsung_galaxy_s24|price|"),
        # What the asker bought, in a clause of its own: a product spec is everyone's.
        ("小米14重多少克 我买了个手机壳", "xiaomi_14|weight|"),
        # Everyday words.
        ("does the xiaomi 14 come with a power brick", "xiaomi_14|in_box|"),
        ("what macos does the macbook air m3 ship with", "macbook_air_m3|operating_system|"),
        ("xiaomi 14 price in rmb", "xiaomi_14|price|"),
        ("macbook air m3 high refresh promotion?", "macbook_air_m3|refresh_rate|"),
    ],
)
def test_fingerprints(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        "if the screen cracks who fixes it",
        # One delivery word ("take") is no veto of the second reader.
        "if the watch breaks down where do i take it",
    ],
)
def test_after_sales_questions(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "after_sales_service"


def test_reader_reads_without_the_variant_named_by_a_number(
    extractor: SemanticExtractor,
) -> None:
    # The rules hand the reader the span of "46 mm" (a case size) with the nouns of
    # stated values, so its unit is not read as a size asked.
    norm = extractor.normaliser.normalise("huawei watch gt 4 the 46 mm one, how much")
    spans = extractor._decide_rules("", norm)[3]
    assert any(norm[start:end] == "46 mm" for start, end in spans)


def test_how_long_to_reach_me_is_delivery(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("how long will an order take to reach us")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "delivery_time"


def test_a_storage_unit_spelled_out_but_not_read_abstains(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iphone 15 pro three terabyte price")
    assert isinstance(decision, NoFingerprint), decision


@pytest.mark.parametrize(
    "question",
    [
        # Whose it is stays personal.
        "my sister's xiaomi 14 screen cracked",
        "can i get my old xiaomi 14 repaired here, how much",
        # A purchase clause beside a policy question: the policy is the asker's.
        "我买了个手机壳 小米14能退吗",
        # A personal clause with a number (an order) stays personal.
        "我的订单12345 小米14多重",
    ],
)
def test_still_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # Two storages, neither ruled out, still compare.
        ("小米14 256g和512g多少钱", "compare"),
        # A recommendation phrased with a degree adverb stays a recommendation.
        ("小米14哪个颜色比较耐看", "recommend"),
    ],
)
def test_still_bypassed(extractor: SemanticExtractor, question: str, intent: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


def test_degree_adverb_before_quantity(extractor: SemanticExtractor) -> None:
    segmenter = extractor._segmenter
    assert segmenter.degree_adverbs("我拍照比较少") == [(3, 5)]
    assert segmenter.degree_adverbs("比较一下价格") == []


def test_reader_veto_on_two_words_stands(extractor: SemanticExtractor) -> None:
    # "shipping" and "take" both read as a delivery time: no single word carries it.
    verdict = extractor.reader.read("how long does shipping take", None, "price")
    assert not verdict.agrees
    assert verdict.attribute == "delivery_time"
