"""Real-time cues: everyday now words, sales words, present-time words beside a volatile
attribute, and the time words, idioms and trademarks that carry no real-time intent.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.admission import only_present_time, volatile_attributes
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from services.core.semantic.phrases import Hit
from tests.unit.semantic.decisions import cid_of, decided_bypass, rules_cid


@pytest.mark.parametrize(
    "text", ["iPhone 15这会儿多少钱", "小米14眼下什么价", "Model Y price as of today"]
)
def test_everyday_now_words_are_realtime(extractor: SemanticExtractor, text: str) -> None:
    assert decided_bypass(extractor, text) == "realtime"


def test_a_camelcase_feature_word_is_no_sales_promotion(extractor: SemanticExtractor) -> None:
    assert rules_cid(extractor, "is there ProMotion on the iPhone 16 Pro") == (
        "iphone_16_pro|refresh_rate|"
    )
    decision = extractor.decide("is there a promotion on the iPhone 16 Pro")
    assert isinstance(decision, Bypass) and decision.intent == "realtime", decision


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # A time word that only says when the asker does something, in a clause of its own.
        ("最近在看电车，想了解下特斯拉Model Y车重多少", "tesla_model_y|weight|"),
        ("周末经常出去骑车，apple watch 9能撑多久", "apple_watch_series_9|battery_life|"),
    ],
)
def test_a_time_word_of_the_askers_situation_is_no_realtime_cue(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        # Another real-time cue in the clause, a time word in the product's clause, or a
        # clause that asks what there is (最近有…) stays real-time.
        "最近有优惠吗，小米14多少钱",
        "最近在看手机，小米14现在多少钱",
        "最近小米14多少钱",
        "最近在看新手机，小米14有货吗",
        "今天下单，小米14几天到",
    ],
)
def test_realtime_cues_outside_a_situation_clause_still_bypass(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # "a big deal" is "important", "for weeks now" a duration so far: no sale, no
        # present moment.
        (
            "battery matters a lot, no big deal otherwise, how heavy is the xiaomi 14",
            "xiaomi_14|weight|",
        ),
        ("been eyeing it for weeks now, how heavy is the galaxy s24", "samsung_galaxy_s24|weight|"),
    ],
)
def test_idioms_of_deal_and_now_are_no_realtime_cue(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question", ["any deals on the iphone 15", "how heavy is the galaxy s24 now, any deal"]
)
def test_deal_and_now_still_bypass(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "realtime"


@pytest.mark.parametrize(
    "question",
    [
        # The sales word stays a bypass beside another attribute's cue or alone.
        "iphone 15 pro promotion price",
        "is there a promotion on the iphone 15 pro",
    ],
)
def test_sales_word_stays_realtime(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "realtime"


def test_volatile_attributes_come_from_the_descriptions() -> None:
    document = {
        "attributes": {
            "price": {"kind": "spec", "description": "Today's prices are 'realtime'."},
            "weight": {"kind": "spec", "description": "How heavy."},
            "invoice": {"kind": "policy", "description": "Invoices."},
        }
    }
    assert volatile_attributes(document) == frozenset({"price", "invoice"})


def test_only_present_time() -> None:
    assert only_present_time([Hit("realtime", 0, 2, "现在"), Hit("realtime", 5, 8, "now")])
    assert not only_present_time([Hit("realtime", 0, 2, "现在"), Hit("realtime", 3, 5, "有货")])
    assert not only_present_time([])


@pytest.mark.parametrize(
    "question",
    [
        "Model 3 落地价大概多少",  # on the road: taxes and fees of the place and day
        "what's the on the road price of a Model 3",
        "小米14 白色还能下单吗",
        "AirPods Pro 2 现在跌到多少了",
        "MacBook Air M3 已经降了多少",
    ],
)
def test_an_on_the_road_price_an_open_order_or_a_price_fall_is_the_moment(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"


@pytest.mark.parametrize(
    "question",
    ["MacBook Air M3 教育价多少", "Galaxy S24 员工价是多少", "employee price for the Xiaomi 14"],
)
def test_a_price_for_a_group_of_buyers_is_a_discount_of_the_moment(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"


def test_a_rebate_is_a_price_of_the_moment(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "Galaxy S24 price after the mail-in rebate") == "realtime"


@pytest.mark.parametrize(
    "question", ["Model Y 有哪些颜色？珍珠白现车有吗", "小米14 有几种颜色，白色还能抢到吗"]
)
def test_a_car_in_stock_or_one_still_to_be_had_is_the_moment(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "realtime"
