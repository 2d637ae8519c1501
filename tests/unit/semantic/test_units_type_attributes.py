"""Units type the attribute: a unit only one attribute uses, compound and spelt-out units,
units a spec note states, and a unit phrase spanning another attribute's phrase.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint
from services.core.semantic.lexicon import (
    american_spellings,
    compound_unit_forms,
)
from tests.unit.semantic.decisions import cid_of, rules_cid


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


def test_compound_units_are_spelt_out() -> None:
    forms = compound_unit_forms({"W": ["w", "watt"], "h": ["h", "hours", "小时"], "Wh": ["wh"]})
    assert {"watt-hours", "watt hours"} <= set(forms["Wh"])
    assert "w-h" not in forms["Wh"]  # symbols are not words


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # "hours" belongs to the unit watt-hours, not to a battery-life phrase.
        ("is the MacBook Pro 14 M3 battery 72 watt-hours", "macbook_pro_14_m3|battery_capacity|"),
        # The unit asked for: 瓦时 (energy), not the 瓦 inside it (power).
        ("MacBook Pro 14 M3 电池能存多少瓦时", "macbook_pro_14_m3|battery_capacity|"),
        # 几万 counts kilometres here, not money.
        ("Model 3 基本质保是几年几万公里", "tesla_model_3|warranty|coverage=basic"),
        # A battery-life phrase spanning the warranty phrase: the lexicon's dominance.
        ("华为Mate 60 电池保修多久", "huawei_mate_60|warranty|"),
        # How often per second is a rate.
        ("Galaxy S24 屏幕每秒能刷新几次", "samsung_galaxy_s24|refresh_rate|"),
        ("Galaxy S24 display: how many times per second?", "samsung_galaxy_s24|refresh_rate|"),
    ],
)
def test_units_and_phrases_settle_the_attribute(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert rules_cid(extractor, text) == cid


def test_a_unit_a_spec_note_states_types_the_attribute(extractor: SemanticExtractor) -> None:
    # The catalog gives the watch's water resistance with "50 m" in its note: 50米 is no
    # stray number (before, only a phone's, laptop's or car's dimensions were in metres).
    assert cid_of(extractor.decide("Apple Watch Series 9 游泳的时候防水有50米吗")) == (
        "apple_watch_series_9|water_resistance|"
    )


def test_a_slang_price_phrase_that_is_the_asked_unit_gives_way(
    extractor: SemanticExtractor,
) -> None:
    # 多少米 is slang for "how much money", but after 防水 it asks for metres.
    assert cid_of(extractor.decide("Apple Watch Series 9 能防水多少米")) == (
        "apple_watch_series_9|water_resistance|"
    )
    # Without a water-resistance word it is no metres question.
    assert cid_of(extractor.decide("Apple Watch Series 9 要多少米")) != (
        "apple_watch_series_9|water_resistance|"
    )


def test_a_storage_unit_spelled_out_but_not_read_abstains(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iphone 15 pro three terabyte price")
    assert isinstance(decision, NoFingerprint), decision


def test_spoken_storage_not_a_pronoun(extractor: SemanticExtractor) -> None:
    norm = extractor.normaliser.normalise
    assert norm("the one terabyte version") == "the 1tb version"
    assert norm("two gigabytes") == "2gb"
    assert norm("512 gigs") == "512gb"  # one place reads every spelt-out unit
    assert norm("512 gb") == "512 gb"  # the value forms read it as written
    assert norm("the pro one is nicer") == "the pro one is nicer"


def test_american_spellings() -> None:
    assert "neighbor" in american_spellings("neighbour")
    assert "authorized" in american_spellings("authorised")
    assert "centers" in american_spellings("centres")
    assert american_spellings("gameplay") == ()
