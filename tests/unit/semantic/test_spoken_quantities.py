"""Quantities as voice input writes them, and names read in a second pass: a Chinese
numeral with a hundreds place (一百二十八), 幺 for 一 in digit-by-digit reading, sizes
said in words (one twenty eight gig, five hundred twelve gb, forty one millimeters), the
variant word after a transliterated series and a spoken model number (麦特六十普罗);
a series named with no model keeps a product's policy from the store-wide class; a
question whether the asker's unit is still under warranty is theirs. Questions written
for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import NoFingerprint
from services.core.semantic.normalise import parse_spoken_quantity
from tests.unit.semantic.decisions import cid_of, decided_bypass


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("one twenty eight", 128),
        ("two fifty six", 256),
        ("five twelve", 512),
        ("five hundred twelve", 512),
        ("five hundred and twelve", 512),
        ("forty six", 46),
        ("nine", 9),
    ],
)
def test_spoken_quantities(words: str, value: int) -> None:
    assert parse_spoken_quantity(words) == value


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米十四 那个二百五十六的 多少钱", "xiaomi_14|price|storage=256GB"),
        ("苹果十六 五幺二的 官方价", "iphone_16|price|storage=512GB"),
        ("galaxy s24 two fifty six gig how much", "samsung_galaxy_s24|price|storage=256GB"),
        ("iphone 16 pro five hundred twelve gb price", "iphone_16_pro|price|storage=512GB"),
        (
            "huawei watch gt 4 forty six millimeters weight",
            "huawei_watch_gt_4|weight|case_size=46mm",
        ),
        ("华为麦特六十普罗 多重", "huawei_mate_60_pro|weight|"),
    ],
)
def test_spoken_sizes_and_second_pass_names(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_a_large_number_keeps_its_wan() -> None:
    # 一万三千九百九十九 is one price, never "一万" and 3999.
    from services.semantic.loading import load_semantic_extractor

    extractor = load_semantic_extractor()
    norm = extractor.normaliser.normalise("是不是一万三千九百九十九")
    assert "3999" not in norm


def test_a_series_without_its_model_is_no_store_wide_policy(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("galaxy warranty how long")
    assert isinstance(decision, NoFingerprint), decision
    assert cid_of(extractor.decide("warranty how long")) == "null|warranty|"


@pytest.mark.parametrize(
    "question",
    ["那副耳机左边不响了，还在保修期内吗", "the screen flickers now, still under warranty?"],
)
def test_whether_the_askers_unit_is_still_under_warranty_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_a_hypothetical_unit_still_under_warranty_is_the_rule(
    extractor: SemanticExtractor,
) -> None:
    assert decided_bypass(extractor, "如果用了半年坏了，还在保修期内吗") is None
