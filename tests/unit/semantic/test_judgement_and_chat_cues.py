"""Cues found by round 14's red-team sets, as mechanisms: judgements of adequacy
(overkill, 扛得住吗, 放心吗, a stated value judged by an A-not-A adjective), stock left,
the asker's own shipments, voucher prices, a cue word glued to a number (a unit), chat
particles after "how much" and "wats" for "what's". Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import cid_of, decided_bypass


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("would the galaxy s24 ultra be overkill for my grandma", "recommend"),
        ("is the macbook air m3 underpowered for video editing", "recommend"),
        ("华为Mate 60 Pro 玩大型游戏顶得住吗", "recommend"),
        ("AirPods Pro 2 戴着跑步放心吗", "recommend"),
        # The asker states the value and asks a judgement of it.
        ("1.6kg的ThinkPad X1 Carbon 每天带去学校沉不沉", "recommend"),
        ("how many of the iphone 16 pro in desert titanium are left", "realtime"),
        ("any airpods pro 2 with usb-c left in stock?", "realtime"),
        ("freebuds pro 3 with a discount code how much", "realtime"),
        ("iphone 15 price after vouchers", "realtime"),
        ("we shipped the watch back on monday, has the store received it", "personal"),
        ("i mailed the s24 back for a refund", "personal"),
    ],
)
def test_judgement_stock_voucher_and_own_shipment_cues(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The same attributes asked plainly stay cacheable.
        ("ThinkPad X1 Carbon 重不重，多少克", "thinkpad_x1_carbon|weight|"),
        ("华为GT4 5ATM 是什么意思，能游泳吗", "huawei_watch_gt_4|water_resistance|"),
        # A cue glued to a number is that number's unit: 5ATM is no "at the moment".
        ("5ATM的华为GT4防水等级", "huawei_watch_gt_4|water_resistance|"),
        # Chat particles and forms of address after "how much" are no noun it quantifies.
        ("xiaomi 14 512gb how much lah", "xiaomi_14|price|storage=512GB"),
        ("model y long range how much bro", "tesla_model_y|price|trim=long_range"),
        # "wats" before a determiner is "what's"; after a number it is watts.
        ("wats the weight of the macbook air m3", "macbook_air_m3|weight|"),
        # after a model code ("m3") it is still "what's"
        ("macbook air m3 wats in the box, a charger?", "macbook_air_m3|in_box|"),
    ],
)
def test_plain_questions_beside_those_cues_stay_cacheable(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid
