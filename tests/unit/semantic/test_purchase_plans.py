"""A future time that only dates the asker's own purchase is no prediction (admission.py)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("打算下个月买小米14，电池多大", "xiaomi_14|battery_capacity|"),
        ("准备明年换苹果16，它屏幕多大", "iphone_16|screen_size|"),
        (
            "i'm planning to buy the iphone 16 next month, how big is the battery",
            "iphone_16|battery_capacity|",
        ),
    ],
)
def test_the_askers_purchase_date_is_no_prediction(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "小米14下个月会降价吗",
        "打算明年买小米14，到时候还会更新系统吗",
        "i plan to buy an iphone 16 next month, will the price drop by then",
    ],
)
def test_what_the_product_will_do_stays_a_prediction(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "predict"
