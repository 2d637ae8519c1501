"""Hard cases for the extractor, written for these tests (not taken from the dev set).

An expectation is a cid (that exact fingerprint), ``bypass:<intent>`` (that bypass), or
``miss`` (anything but a fingerprint: a bypass or no fingerprint both keep the cache out).
"""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint, SemanticDecision


def check(decision: SemanticDecision, expected: str) -> None:
    if expected == "miss":
        assert not isinstance(decision, Fingerprint), decision
    elif expected.startswith("bypass:"):
        assert isinstance(decision, Bypass), decision
        assert decision.intent == expected.split(":", 1)[1], decision
    else:
        assert isinstance(decision, Fingerprint), decision
        assert decision.cid == expected


SIBLINGS = [
    ("iphone 15多重", "iphone_15|weight|"),
    ("iphone 15 pro多重", "iphone_15_pro|weight|"),
    ("IPHONE15PROMAX多重", "iphone_15_pro_max|weight|"),
    ("15pm多重", "iphone_15_pro_max|weight|"),
    ("iPhone 16多重", "iphone_16|weight|"),
    ("iPhone 16 Pro多重", "iphone_16_pro|weight|"),
    ("iPhone 16 Pro Max多重", "miss"),  # not sold here: never the 16 Pro's answer
    ("ip16pm多重", "miss"),
    ("iPhone 15 Plus多重", "miss"),
    ("iPhone 15 Max多重", "miss"),
    ("iPhone 15 max wired charging speed?", "iphone_15|charging_power|method=wired"),
    ("Mate 60屏幕多大", "huawei_mate_60|screen_size|"),
    ("Mate 60 Pro 的屏幕多大", "huawei_mate_60_pro|screen_size|"),
    ("华为Mate 60 Pro+多少钱", "miss"),
    ("mate60 RS 价格", "miss"),
    ("小米14 Ultra多重", "miss"),
    ("小米15 Pro电池多大", "miss"),  # "15 Pro" after another brand is not an iPhone
    ("Galaxy S24 FE price", "miss"),
    ("S24多重", "samsung_galaxy_s24|weight|"),
    ("S24 Ultra多重", "samsung_galaxy_s24_ultra|weight|"),
    ("Huawei Watch GT4 Pro价格", "miss"),
    ("FreeBuds Pro 2 续航", "miss"),
    ("AirPods Pro 续航", "miss"),  # which generation? a miss, not a guess
    ("MacBook Air 15寸 M3多重", "miss"),
    ("13寸MacBook Air M3多重", "macbook_air_m3|weight|"),
    ("15英寸MacBook Air M3屏幕多大", "miss"),
    ("X1 Carbon Gen 11多重", "miss"),
]

UNKNOWN_PRODUCTS = [
    ("iPhone 14 Pro电池多大", "bypass:unknown_product"),
    ("Mate 70续航", "bypass:unknown_product"),
    ("MacBook Air M2多重", "bypass:unknown_product"),
    ("Model S续航多少", "bypass:unknown_product"),
    ("比亚迪海豹多少钱", "bypass:unknown_product"),
    ("Redmi K70多少钱", "bypass:unknown_product"),
    ("Apple Watch SE续航", "bypass:unknown_product"),
    ("华为P60多少钱", "bypass:unknown_product"),
]

CONSTRAINTS = [
    ("iphone15，128g，多少钱!!", "iphone_15|price|storage=128GB"),
    ("苹果15 Pro 256G 官方价", "iphone_15_pro|price|storage=256GB"),
    ("Xiaomi 14 16GB+1TB price", "xiaomi_14|price|storage=1TB"),
    ("小米14 12+256多少钱", "xiaomi_14|price|storage=256GB"),
    ("Mate60Pro 1T版本售价", "huawei_mate_60_pro|price|storage=1TB"),
    ("iPhone 15 1TB多少钱", "miss"),  # not offered
    ("iPhone 15 256G屏幕多大", "iphone_15|screen_size|"),  # screen does not vary by storage
    ("iPhone 15 Pro追剧能撑几个小时", "iphone_15_pro|battery_life|context=video_playback"),
    ("iPhone 15打游戏能玩多久", "miss"),  # a context the catalog does not list
    ("AirPods Pro 2 单次听歌多久", "airpods_pro_2|battery_life|context=audio_playback"),
    (
        "AirPods Pro 2 加上充电盒一共能用多久",
        "airpods_pro_2|battery_life|context=with_charging_case",
    ),
    ("华为GT4 46毫米多少钱", "huawei_watch_gt_4|price|case_size=46mm"),
    ("Apple Watch Series 9 四十五毫米价格", "apple_watch_series_9|price|case_size=45mm"),
    ("苹果手表S9大号多少钱", "miss"),  # a size hint we cannot read
    ("iPhone 15 Pro长焦多少像素", "iphone_15_pro|camera|lens=telephoto"),
    ("iPhone 15 Pro后置摄像头多少像素", "miss"),
    ("Model Y超充功率", "tesla_model_y|charging_power|method=dc_fast"),
    ("Model Y 家充功率多少", "tesla_model_y|charging_power|method=ac"),
    ("小米14无线充电多少瓦", "xiaomi_14|charging_power|method=wireless"),
    ("小米14充电功率", "xiaomi_14|charging_power|"),
    ("Model 3长续航版能跑多少公里", "tesla_model_3|range|trim=long_range"),
    ("Model Y长续航版多少钱", "tesla_model_y|price|trim=long_range"),
    ("Model Y续航", "tesla_model_y|range|"),  # 续航 is range for cars
    ("iPhone 15续航", "iphone_15|battery_life|"),  # and battery life for phones
    ("Model Y 四驱版多少钱", "miss"),
    ("比亚迪汉三电质保", "byd_han|warranty|coverage=battery"),
    ("特斯拉Model 3整车质保几年", "tesla_model_3|warranty|coverage=basic"),
    ("没拆封可以退吗", "null|return_policy|item_state=unopened"),
    ("用过了还能退吗", "miss"),
    ("S24 Ultra 是 2 亿像素吗", "miss"),  # a value that implies a lens, not the summary
]

MIXED_AND_NOISE = [
    ("ｉＰｈｏｎｅ　１５　Ｐｒｏ　重量", "iphone_15_pro|weight|"),
    ("苹果十五电池多大", "iphone_15|battery_capacity|"),
    ("华为mate六十pro电池多大", "huawei_mate_60_pro|battery_capacity|"),
    ("airpods pro 第二代 防水吗", "airpods_pro_2|water_resistance|"),
    ("AirPods Pro 2nd gen price", "airpods_pro_2|price|"),
    ("iPhone 15 价格是多少？？？😂", "iphone_15|price|"),
    ("Is the iPhone 15 waterproof? 🌊💦", "iphone_15|water_resistance|"),
    ("iphnoe 15 battery capacity", "iphone_15|battery_capacity|"),
    ("macbok air m3 weight", "macbook_air_m3|weight|"),
    ("samsumg galaxy s24 ultra price", "samsung_galaxy_s24_ultra|price|"),
    ("thinkpad x1c重量", "thinkpad_x1_carbon|weight|"),
    ("How much is the 1TB 15 Pro Max?", "iphone_15_pro_max|price|storage=1TB"),
    ("比亚迪汉多少钱", "byd_han|price|"),  # 比 of 比亚迪 is no comparison
    ("iPhone 15 是什么接口", "miss"),  # outside the attribute vocabulary
    ("iPhone 15 屏幕分辨率", "miss"),
]

BYPASSES = [
    ("我的订单到哪了", "bypass:personal"),
    ("我手机号13712345678 iPhone 15多少钱", "bypass:personal"),
    ("iPhone 15现在多少钱", "bypass:realtime"),
    ("iPhone 15有货吗", "bypass:realtime"),
    ("iPhone 15会降价吗", "bypass:predict"),
    ("iPhone 15和16哪个好", "bypass:compare"),
    ("iPhone 15值得买吗", "bypass:recommend"),
    ("比亚迪汉和Model 3哪个续航长", "bypass:compare"),
    ("iPhone 15 256G和512G差多少钱", "bypass:compare"),
    ("苹果保修多久", "miss"),  # a brand, no model
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [*SIBLINGS, *UNKNOWN_PRODUCTS, *CONSTRAINTS, *MIXED_AND_NOISE, *BYPASSES],
)
def test_decision(extractor: SemanticExtractor, text: str, expected: str) -> None:
    check(extractor.decide(text), expected)


def test_store_policies_have_no_product(extractor: SemanticExtractor) -> None:
    for text, attribute in [
        ("保修多久", "warranty"),
        ("开发票吗", "invoice"),
        ("包邮吗", "shipping_fee"),
        ("能分期吗", "installment"),
        ("一般几天发货", "delivery_time"),
    ]:
        decision = extractor.decide(text)
        assert isinstance(decision, Fingerprint)
        assert (decision.product, decision.attribute, decision.intent) == (
            None,
            attribute,
            "query_policy",
        )


def test_empty_and_noise_only_questions(extractor: SemanticExtractor) -> None:
    for text in ["", "   ", "？？？", "😂😂"]:
        assert not isinstance(extractor.decide(text), Fingerprint)
