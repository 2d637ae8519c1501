"""Kinds of product the store does not sell at all (home appliances, drones, printers)
and their makers are products the catalog does not list: a warranty or return question
about one is unknown_product, never the store's own policy. A maker and its product kind
side by side (a brand, then "drone") name one product, not two to compare. An accessory
sold apart (a case, a strap, ear tips) is what a question asks about when it is attached
to a product's name or no product is named; in a question about the box's contents it is
part of the answer. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "大疆无人机保修多久",
        "电饭煲能七天无理由退吗",
        "robot vacuum warranty how long",
        "dyson hair dryer return policy",
        "冰箱包邮吗",
        "does the projector ship free",
        "索尼 xperia 保修多久",
        # accessories asked about
        "华为手表GT4的替换表带多少钱",
        "how much is a leather case for the iphone 16",
        "iPhone 16 phone case colours",
        "小米14 钢化膜多少钱",
        "充电宝包邮吗",
        "spare ear tips for the airpods pro 2 price",
        "Mate 60 Pro的触控笔单独买多少钱",
    ],
)
def test_an_unlisted_kind_maker_or_accessory_is_an_unknown_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # store questions beside unlisted kinds keep their key
        ("保修多久", "null|warranty|"),
        ("你们家能七天无理由退货吗", "null|return_policy|"),
        ("xiaomi 14 refresh rate? i play games on it", "xiaomi_14|refresh_rate|"),
        # accessories in the box, or beside a product question
        ("小米14盒子里送不送手机壳", "xiaomi_14|in_box|"),
        ("what's in the box of the airpods pro 2, any spare ear tips?", "airpods_pro_2|in_box|"),
        ("想买个手机壳，先问下小米14的机身三围是多少", "xiaomi_14|dimensions|"),
        # variant nicknames
        ("苹果15破麦多重", "iphone_15_pro_max|weight|"),
        # a size nickname apart from the name names a variant the name does not
        ("苹果15 要最大那个 超大杯 多重", None),
        ("三星超大杯s24ultra多重", "samsung_galaxy_s24_ultra|weight|"),
    ],
)
def test_the_key_beside_them(extractor: SemanticExtractor, question: str, cid: str | None) -> None:
    assert decided_cid(extractor, question) == cid
