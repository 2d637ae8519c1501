"""Cues of bypass intents said as shoppers say them: whether a product holds up for the
asker's own trip or need (recommend), whether a rule will change (predict), whether the
asker's own case has happened yet (personal), and a comparison with another shop or with
last year's model (compare). Twins that stay plain questions keep their key. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from tests.unit.semantic.decisions import cid_of, decided_bypass


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("would the airpods pro 2 battery last me through a long flight", "recommend"),
        ("can the model y range last a weekend road trip", "recommend"),
        ("华为Mate 60 Pro的电池能撑我们露营两天吗", "recommend"),
        ("AirPods Pro 2续航8小时，够我坐一趟长途大巴吗", "recommend"),
        ("is the galaxy s24 ultra water resistant enough for my kayaking", "recommend"),
        ("is the blue xiaomi 14 too flashy for a man", "recommend"),
        ("以后退货运费的规定会调整吗", "predict"),
        ("特斯拉Model 3的电池质保会缩短吗", "predict"),
        ("小米14以后系统更新能不能把续航提上去", "predict"),
        ("苹果16屏幕多大？顺便问下今天下单送不送耳机", "realtime"),
        ("我的换货申请批下来了没有", "personal"),
        ("发票开了没？", "personal"),
        ("前几天申请的退款怎么还没人处理", "personal"),
        ("我已经付完款了，订单为啥显示未付款", "personal"),
        ("你们跟京东哪家发货比较快", "compare"),
        ("京东买跟在你们店买，价保一样吗", "compare"),
        ("小米14的颜色和去年的一样吗", "compare"),
        ("is the iphone 16 battery different from last year's", "compare"),
    ],
)
def test_the_cue_makes_it_bypass(extractor: SemanticExtractor, question: str, intent: str) -> None:
    assert decided_bypass(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("would the airpods pro 2 battery last 6 hours", "airpods_pro_2|battery_life|"),
        ("华为Mate 60 Pro的续航能撑两天吗", "huawei_mate_60_pro|battery_life|"),
        ("付完款一般多久发货", "null|delivery_time|"),
        (
            "is the galaxy s24 ultra water resistant enough for swimming",
            "samsung_galaxy_s24_ultra|water_resistance|",
        ),
        ("之前在别的店买了台投影仪，运费很贵，你们这包邮吗", "null|shipping_fee|"),
    ],
)
def test_the_twin_keeps_its_key(
    extractor: SemanticExtractor, question: str, cid: str | None
) -> None:
    decision = extractor.decide(question)
    assert not isinstance(decision, Bypass)
    assert cid_of(decision) == cid
