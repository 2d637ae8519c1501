"""Sixth pass: the second reader vetoes on the margin only when confident in another
attribute; chat
words are noise; "will I / will you" asks about the store's rule, not the future
(questions written for these tests, not taken from any labelled set)."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.semantic.loading import SemanticData, build_extractor


@pytest.mark.parametrize(
    ("text", "product", "attribute"),
    [
        # Screen size is its best (its near twin). Until round 8's second cues pass the
        # examples were "显示屏一秒钟刷新多少次"; 刷新多少次 is refresh vocabulary since,
        # so the reader is sure of those and they no longer test an unsure reader.
        ("iphone 15 display how many hz", "iphone_15", "refresh_rate"),
        ("小米14的显示屏多少赫兹呢", "xiaomi_14", "refresh_rate"),
    ],
)
def test_reader_does_not_veto_a_near_synonym_it_is_merely_unsure_of(
    extractor: SemanticExtractor, text: str, product: str | None, attribute: str
) -> None:
    norm = extractor.normaliser.normalise(text)
    scores = dict(extractor.reader._attribute.ranking(norm))
    # The example must lie well away from a tie (else pick another one): beyond the old
    # margin of 16 nats until the second cues pass, whose "high refresh" brought the
    # refresh rate's forms closer to these questions (13 nats).
    assert max(scores.values()) - scores[attribute] > 10.0
    verdict = extractor.reader.read(norm, product, attribute)
    assert verdict.agrees, verdict
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert (decision.product, decision.attribute) == (product, attribute)


@pytest.mark.parametrize("attribute", ["weight", "price", "screen_size"])
def test_reader_still_vetoes_when_confident_in_another_attribute(
    extractor: SemanticExtractor, attribute: str
) -> None:
    text = extractor.normaliser.normalise("小米14 退货政策")
    assert not extractor.reader.read(text, "xiaomi_14", attribute).agrees


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


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("will you give me a receipt?", "invoice"),
        ("Will I get a refund if I return an opened box?", "return_policy"),
    ],
)
def test_will_i_or_will_you_asks_about_the_store_rule(
    extractor: SemanticExtractor, text: str, attribute: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == attribute


@pytest.mark.parametrize(
    "text",
    [
        "will the Xiaomi 14 get HyperOS 2",
        "will you sell the Mate 70",
        "will you lower the price of the Mate 60",
        "will I get updates on the iPhone 15 for 5 years",
        "will we see a cheaper MacBook Air M3",
    ],
)
def test_will_about_the_product_future_stays_predict(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision


@pytest.mark.parametrize(
    ("text", "product"),
    [
        # The catalog's iPhone 15 has a Pro (and a Pro Max, two words) but no Plus.
        ("苹果15P多少钱", "iphone_15_pro"),
        ("iPhone 16P screen size", "iphone_16_pro"),
        ("mate60p 重量", "huawei_mate_60_pro"),
    ],
)
def test_a_variant_letter_the_series_makes_unique(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text, second_reader=False)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


@pytest.mark.parametrize(
    "text",
    [
        "xiaomi 14p price",  # the Xiaomi 14 has no variant starting with p
        "iPhone 15P max weight",  # the letter and another variant word: not one variant
        "mate 60e 多少钱",  # e is a variant of its own, never an abbreviation
    ],
)
def test_a_variant_letter_the_series_does_not_settle(
    extractor: SemanticExtractor, text: str
) -> None:
    assert not isinstance(extractor.decide(text), Fingerprint)


def test_a_letter_two_variants_of_the_series_share_stays_unread(
    semantic_data: SemanticData,
) -> None:
    catalog = json.loads(json.dumps(semantic_data.catalog, default=dict))
    plus = copy.deepcopy(next(p for p in catalog["products"] if p["id"] == "iphone_15"))
    plus["id"] = "iphone_15_plus"
    plus["names"] = {"zh": ["苹果15 Plus"], "en": ["iPhone 15 Plus"]}
    catalog["products"].append(plus)
    extractor = build_extractor(dataclasses.replace(semantic_data, catalog=catalog))
    assert not isinstance(extractor.decide("iPhone 15P weight"), Fingerprint)
    decision = extractor.decide("iPhone 15 Plus weight")
    assert isinstance(decision, Fingerprint) and decision.product == "iphone_15_plus"


@pytest.mark.parametrize(
    ("text", "product"),
    [
        # A catalog product is on sale, so "when does it launch" asks its launch date.
        ("小米14什么时候上市", "xiaomi_14"),
        ("iPhone 15 什么时候发布", "iphone_15"),
    ],
)
def test_launch_question_about_a_catalog_product_is_its_release_date(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert (decision.product, decision.attribute) == (product, "release_date")


@pytest.mark.parametrize(
    "text",
    ["小米15什么时候上市", "华为什么时候发布新手机", "什么时候上市", "下一代小米14什么时候出"],
)
def test_launch_question_without_a_catalog_product_stays_predict(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent in {"predict", "unknown_product"}


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
    ("text", "attribute"),
    [
        ("Can I send the earbuds back after a week?", "return_policy"),
        ("If my screen cracks, am I covered?", "warranty"),
        ("Do I need to pay for shipping?", "shipping_fee"),
        ("Do you charge extra to deliver to the countryside?", "shipping_fee"),
        ("Can I pay in cash when the parcel arrives?", "payment_methods"),
        ("下单后多久发出", "delivery_time"),
    ],
)
def test_everyday_wording_of_store_policies(
    extractor: SemanticExtractor, text: str, attribute: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert (decision.product, decision.attribute) == (None, attribute)


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


@pytest.mark.parametrize("text", ["我前天下的订单什么时候发货", "我上周下的单能退吗"])
def test_an_order_placed_at_a_past_time_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == "personal", decision
