"""Fifth pass: store-wide policies, product-only constraint values, short misspelt name
words, compound and asked-for units, a phrase spanning another attribute's phrase,
per-second rates, CamelCase trademarks, future updates and first-person devices
(questions written for these tests, not taken from any labelled set)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint
from services.core.semantic.lexicon import compound_unit_forms
from services.core.semantic.spelling import SpellingCorrector


def _rules_cid(extractor: SemanticExtractor, text: str) -> str | None:
    decision = extractor.decide(text, second_reader=False)
    return decision.cid if isinstance(decision, Fingerprint) else None


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # attributes.json: shipping and delivery apply to the store, not to phones.
        ("华为Mate 60 发货要几天", "null|delivery_time|"),
        ("Samsung Galaxy S24 包邮吗", "null|shipping_fee|"),
        # ... while returns apply to earbuds too: the product stays.
        ("FreeBuds Pro 3 没拆封能退吗", "huawei_freebuds_pro_3|return_policy|item_state=unopened"),
    ],
)
def test_a_store_wide_policy_about_a_product_gets_the_store_wide_key(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert _rules_cid(extractor, text) == cid


def test_a_value_only_a_products_policy_has_needs_a_product(
    extractor: SemanticExtractor,
) -> None:
    # A battery warranty is a car's (its spec varies by coverage), never the store's.
    decision = extractor.decide("那款电车的电池质保几年", second_reader=False)
    assert isinstance(decision, NoFingerprint), decision
    assert _rules_cid(extractor, "质保几年") == "null|warranty|"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("tsela model y", "tesla model y"),  # two letters swapped
        ("mtae 60", "mate 60"),
        ("iphone 16 por", "iphone 16 pro"),  # three letters, swapped
        ("galaxy s24 ulra", "galaxy s24 ultra"),  # a letter dropped, from four letters
        ("apple wtch s9", "apple watch s9"),
    ],
)
def test_short_name_words_are_repaired(typed: str, meant: str) -> None:
    corrector = SpellingCorrector(
        [], ["Tesla Model Y", "Mate 60", "iPhone 16 Pro", "Galaxy S24 Ultra", "Apple Watch S9"]
    )
    assert corrector.correct(typed) == meant


def test_short_name_repair_leaves_words_and_ties_alone() -> None:
    corrector = SpellingCorrector([], ["Mate 60", "Mute 9", "Pro"], english_words={"mete": 900})
    assert corrector.correct("mete") == "mete"  # an English word
    assert corrector.correct("mtte") == "mtte"  # mate and mute both one edit away
    assert corrector.correct("rp") == "rp"  # two letters: too short to tell


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
    assert _rules_cid(extractor, text) == cid


def test_a_camelcase_feature_word_is_no_sales_promotion(extractor: SemanticExtractor) -> None:
    assert _rules_cid(extractor, "is there ProMotion on the iPhone 16 Pro") == (
        "iphone_16_pro|refresh_rate|"
    )
    decision = extractor.decide("is there a promotion on the iPhone 16 Pro")
    assert isinstance(decision, Bypass) and decision.intent == "realtime", decision


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("小米14 能不能升级澎湃OS", "predict"),
        ("华为Mate 60 能不能更新鸿蒙5", "predict"),
        ("我家里那部iPhone 15 屏幕多大", "personal"),
        ("我家那块Apple Watch S9 续航多久", "personal"),
    ],
)
def test_future_updates_and_first_person_devices_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == intent, decision


def test_after_opening_is_no_future(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("拆封之后还能退吗", second_reader=False)
    assert isinstance(decision, Fingerprint), decision


def test_a_chinese_synonym_of_a_numbered_name_takes_chinese_numerals() -> None:
    from services.core.semantic.lexicon import numbered_synonyms

    groups = [["iphone", "爱疯"], ["inch", "英寸"]]
    assert numbered_synonyms(["iPhone 15", "13-inch MacBook"], groups) == ["爱疯"]


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("爱疯十五电池多大", "iphone_15|battery_capacity|"),
        # A Chinese numeral and the digits after it are two numbers.
        ("小米十四256G版本卖多少", "xiaomi_14|price|storage=256GB"),
        # A short name continued by the rest of a longer one (ThinkPad X1 Carbon Gen 12).
        ("X1 Carbon Gen 12 weight", "thinkpad_x1_carbon|weight|"),
        # 快充 names a car's DC charging: for a phone it is fast charging in general.
        ("三星S24快充多少瓦", "samsung_galaxy_s24|charging_power|"),
        # A period stated in a policy question is the rule's own, to confirm.
        ("can I return an unopened item within 14 days", "null|return_policy|item_state=unopened"),
        # The 've of "I've" is understood.
        ("I've opened the box, can I still return it?", "null|return_policy|item_state=opened"),
    ],
)
def test_numerals_names_hints_periods_and_contractions(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_completed_names_skip_names_another_product_has() -> None:
    from services.core.semantic.extractor import completed_names

    names = ["X1 Carbon", "ThinkPad X1 Carbon Gen 12"]
    assert completed_names(names, names) == ["X1 Carbon Gen 12"]
    assert completed_names(names, [*names, "X1 Carbon Gen 12"]) == []


def test_a_stated_number_outside_a_period_still_stops_a_policy_fingerprint(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("can I return 3 items at once", second_reader=False)
    assert not isinstance(decision, Fingerprint), decision


def test_a_cue_starting_inside_a_constraint_phrase_is_no_cue(
    extractor: SemanticExtractor,
) -> None:
    # 充电 of 充电盒 (the case) starts no charging-time question ...
    decision = extractor.decide("FreeBuds Pro 3 加上充电盒总续航多长时间", second_reader=False)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "huawei_freebuds_pro_3|battery_life|context=with_charging_case"
    # ... while a charging-time question after it still is one.
    decision = extractor.decide("AirPods Pro 2 充电盒充满要多久", second_reader=False)
    assert isinstance(decision, NoFingerprint), decision


def test_the_reader_reads_whats_as_what_is(extractor: SemanticExtractor) -> None:
    # "what's" occurs in one attribute's forms ("what's in the box") only.
    for text in ("what's the range of the byd han", "what's the warranty on the xiaomi 14"):
        plain = text.replace("what's", "what is")
        product = "byd_han" if "han" in text else "xiaomi_14"
        attribute = "range" if "range" in text else "warranty"
        assert extractor.reader.attribute_rank(text, attribute) == (
            extractor.reader.attribute_rank(plain, attribute)
        )
        assert extractor.reader.read(text, product, attribute).agrees


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # Colour names and system names from the catalog's own spec texts.
        ("华为FreeBuds Pro 3 有星河蓝吗", "huawei_freebuds_pro_3|colors|"),
        ("MacBook Air M3 是 macOS Sonoma 吗", "macbook_air_m3|operating_system|"),
    ],
)
def test_catalog_spec_texts_are_weak_cues(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert _rules_cid(extractor, text) == cid


def test_a_common_word_among_spec_texts_is_no_cue(extractor: SemanticExtractor) -> None:
    # 黑色 / black are words, not names: no cue of their own.
    labels = {label for phrase, label in extractor._lexicon.attribute_phrases if phrase == "黑色"}
    assert not any(label.startswith("~colors") for label in labels)


def test_a_short_word_is_not_stretched_to_a_three_letter_name_word() -> None:
    corrector = SpellingCorrector([], ["iPhone 15 Pro", "BYD Han"])
    assert corrector.correct("prob") == "prob"  # "probably", not "pro"
    assert corrector.correct("hamn") == "hamn"  # one letter added: not on its own
    # A letter typed twice is a keystroke's slip, read as the name word (round 10).
    assert corrector.correct("hann") == "han"
