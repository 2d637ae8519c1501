"""The product-name grammar and the spelling repair, on names the catalog does not list."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint


@pytest.mark.parametrize(
    ("question", "product"),
    [
        ("平果15多少钱", "iphone_15"),  # homophone of a brand word
        ("华伟Mate 60 Pro重量", "huawei_mate_60_pro"),  # toneless homophone
        ("特斯啦Model Y续航", "tesla_model_y"),
        ("Samsnug Galaxy S24 weight", "samsung_galaxy_s24"),  # transposition
        ("S24U屏幕多大", "samsung_galaxy_s24_ultra"),  # variant letter
        ("三星S24超大杯多少钱", "samsung_galaxy_s24_ultra"),  # variant nickname
        ("iPhone 15大杯多重", "iphone_15_pro"),
        ("iPhone 15超大杯多重", "iphone_15_pro_max"),
        ("华为60 Pro电池多大", "huawei_mate_60_pro"),  # brand + model tail
        ("华为手表4续航", "huawei_watch_gt_4"),  # brand + category word + tail
        ("华为耳机Pro 3多少钱", "huawei_freebuds_pro_3"),
        ("AirPods Pro 第二代 price", "airpods_pro_2"),
    ],
)
def test_unlisted_forms_of_catalog_names(
    extractor: SemanticExtractor, question: str, product: str
) -> None:
    # The rules alone: the second reader may still veto (it cannot read 耳机 as FreeBuds).
    decision = extractor.decide(question, second_reader=False)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


@pytest.mark.parametrize(
    "question",
    [
        "iPhone 16超大杯多重",  # there is no iPhone 16 Pro Max in the catalog
        "苹果15P Max多少钱",  # a letter with another variant word after it
        "华为60 RS电池多大",
        "小米15多少钱",
        "华为耳机3多少钱",  # FreeBuds 3 is not the FreeBuds Pro 3: a variant word was dropped
        "苹果耳机2多少钱",
    ],
)
def test_forms_that_name_no_catalog_product_get_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert not isinstance(decision, Fingerprint), decision


def test_a_common_word_is_not_read_as_a_homophone(extractor: SemanticExtractor) -> None:
    # 接口 (port) is a dictionary word; 买完 (mai3) must not become 卖完 (mai4, sold out).
    assert "接口" in extractor.normaliser.normalise("iPhone 15 是什么接口")
    assert not isinstance(extractor.decide("买完降价了能补差价吗"), Bypass)


def test_the_second_reader_vetoes_a_product_the_rules_misread(
    extractor: SemanticExtractor,
) -> None:
    # Agreement is required: a name the reader sees fully contained wins over the rules.
    verdict = extractor.reader.read("iphone 15 pro多重", "iphone_15", "weight")
    assert not verdict.agrees
    assert extractor.reader.read("iphone 15 pro多重", "iphone_15_pro", "weight").agrees
    # and an attribute it sees no sign of
    assert not extractor.reader.read("iphone 15 pro多重", "iphone_15_pro", "release_date").agrees


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many hours on a full charge for the MacBook Air M3?", "macbook_air_m3|battery_life|"),
        ("How far does the BYD Han go on a full charge?", "byd_han|range|"),
        ("MacBook Air M3充满电能用几个小时", "macbook_air_m3|battery_life|"),
        ("Xiaomi 14是193克吗", "xiaomi_14|weight|"),  # a unit the catalog's specs use
        ("MacBook Air M3 battery 52.6Wh?", "macbook_air_m3|battery_capacity|"),
        ("iPhone 15 256GB price", "iphone_15|price|storage=256GB"),
    ],
)
def test_units_and_full_charge_type_the_attribute(
    extractor: SemanticExtractor, question: str, expected: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == expected


@pytest.mark.parametrize(
    "question",
    [
        "iPhone 15 charge without a cable how fast",  # not "wired"
        "iPhone 15不用线充电多少瓦",
        "Model Y不是长续航版多少钱",
        "MacBook Air M3充满电要几个小时",  # charging time: outside the vocabulary
    ],
)
def test_negated_values_and_unsupported_topics_get_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    assert not isinstance(extractor.decide(question), Fingerprint)
