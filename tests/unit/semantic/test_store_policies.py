"""Store policies: store-wide attributes asked about a product, values only a product's
policy has, "will I / will you" as the store's rule, and everyday policy wording.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import (
    SemanticExtractor,
)
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint
from tests.unit.semantic.decisions import cid_of, rules_cid


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
    assert rules_cid(extractor, text) == cid


def test_a_value_only_a_products_policy_has_needs_a_product(
    extractor: SemanticExtractor,
) -> None:
    # A battery warranty is a car's (its spec varies by coverage), never the store's.
    decision = extractor.decide("那款电车的电池质保几年", second_reader=False)
    assert isinstance(decision, NoFingerprint), decision
    assert rules_cid(extractor, "质保几年") == "null|warranty|"


def test_a_stated_number_outside_a_period_still_stops_a_policy_fingerprint(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("can I return 3 items at once", second_reader=False)
    assert not isinstance(decision, Fingerprint), decision


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
    ("text", "cid"),
    [
        ("能不能用支付宝付钱", "null|payment_methods|"),
        ("手机坏了找哪里修", "null|after_sales_service|"),
        ("付款以后多久能发货", "null|delivery_time|"),
    ],
)
def test_everyday_policy_wording(extractor: SemanticExtractor, text: str, cid: str) -> None:
    assert cid_of(extractor.decide(text)) == cid


def test_hypothetical_purchase_here_is_a_policy_question(extractor: SemanticExtractor) -> None:
    # No past time, no item: phones bought here in general.
    assert cid_of(extractor.decide("在你们这买的手机保修多久")) is not None


def test_after_sales_and_returns_everyday_words(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("if the charger breaks down who repairs it")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "after_sales_service"
    # Returns are a store-wide policy for phones: keyed without the product.
    decision = extractor.decide("if i open the galaxy s24 box can they go back")
    assert cid_of(decision) == "null|return_policy|item_state=opened", decision


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


def test_how_long_to_reach_me_is_delivery(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("how long will an order take to reach us")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "delivery_time"


@pytest.mark.parametrize(
    "text",
    [
        "once I'm past the return window, how does repair work with you",
        "保修期外维修怎么收费",
    ],
)
def test_a_policy_period_the_question_is_set_after_says_when(
    extractor: SemanticExtractor, text: str
) -> None:
    assert rules_cid(extractor, text) == "null|after_sales_service|"


@pytest.mark.parametrize(
    "text",
    [
        "Apple Watch Series 9 支持微信支付吗",
        "does the Galaxy S24 support Alipay",
        "小米14 兼容云闪付吗",
    ],
)
def test_a_product_supporting_a_payment_is_the_device_or_the_store(
    extractor: SemanticExtractor, text: str
) -> None:
    assert cid_of(extractor.decide(text)) is None


def test_paying_for_a_product_bought_here_is_the_stores_rule(extractor: SemanticExtractor) -> None:
    assert rules_cid(extractor, "买 Galaxy S24 支持微信支付吗") == "null|payment_methods|"
