"""A number a comparison word bounds (超过600公里, 6寸以上, "thinner than 16mm", "under
6k") is the asker's limit on the product's own value: understood, naming no variant, and
after "than" no other product. A number that may name a model or variant, a budget or a
deal, a forecast and a difference stay as they were. Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.bounds import find_bounds
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # a bounded value in a unit names no trim or charging method
        ("比亚迪汉续航超过600公里吗", "byd_han|range|"),
        ("三星S24充电功率超过30W吗", "samsung_galaxy_s24|charging_power|"),
        # a unit word after a number is its unit, not the sound of a variant word
        ("苹果16屏幕6寸以上吗", "iphone_16|screen_size|"),
    ],
)
def test_a_bounded_value_names_no_variant(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("is the MacBook Pro 14 M3 thinner than 16mm?", "macbook_pro_14_m3|dimensions|"),
        ("Xiaomi 14 battery bigger than 4000 mAh?", "xiaomi_14|battery_capacity|"),
    ],
)
def test_than_before_a_value_in_a_unit_compares_no_products(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14电池容量是不是4500以上", "xiaomi_14|battery_capacity|"),
        ("iPhone 16 Pro 256G官方价过8000吗", "iphone_16_pro|price|storage=256GB"),
        ("iPhone 16 Pro 512GB 定价高于10000吗", "iphone_16_pro|price|storage=512GB"),
        ("iPhone 15 128GB list price under 6k?", "iphone_15|price|storage=128GB"),
    ],
)
def test_a_bare_bound_on_a_named_attribute_is_understood(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        # a model number after "than" may be another product
        "is the iPhone 16 screen bigger than 15?",
        # a bound followed by a comparative is a difference between products
        "is the S24 more than 20g heavier",
    ],
)
def test_than_before_a_model_number_or_a_difference_stays_compare(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "compare"


@pytest.mark.parametrize(
    "question",
    [
        # 15 is a model number of the catalog; nor is it of a battery's magnitude
        "iPhone 16 Pro屏幕尺寸超过15吗",
        "iPhone 16 Pro电池容量超过15吗",
        # a price the asker would pay: a deal or a budget
        "小米14价格4000以下能买到吗",
        # an amount of money alone: a down payment is no price of the car
        "Model Y 首付低于5万吗",
        # a forecast of the value, and a change of it
        "Model Y续航会超过600公里吗",
        "Model Y续航提升了超过50公里吗",
    ],
)
def test_numbers_that_are_no_bound_on_the_value_get_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    assert not isinstance(extractor.decide(question), Fingerprint)


@pytest.mark.parametrize(
    ("question", "intent"),
    [("4000以下的手机推荐一下", "recommend"), ("小米14现在价格低于4000吗", "realtime")],
)
def test_a_bound_in_a_bypass_question_stays_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent


def test_bound_words_read_before_and_after_the_number() -> None:
    bounds = find_bounds("续航超过600公里 屏幕6寸以上 under 6k")
    assert [b.value for b in bounds] == [600.0, 6.0, 6000.0]
    assert not bounds[0].than and not bounds[0].needs_head
    assert find_bounds("价过8000")[0].needs_head
    assert find_bounds("lighter than 150 g")[0].than


@pytest.mark.parametrize(
    "text", ["降到25万以下", "提升了超过50公里", "会超过600公里", "more than 20g heavier"]
)
def test_a_changed_forecast_or_compared_number_is_no_bound(text: str) -> None:
    assert find_bounds(text) == []
