"""Round 7 (issue 15), precision pass on set20: the Chinese edition words for a larger or
enhanced model (加大版 for Plus, 加强版 for "+", 专业加强版 for Pro+) right after a catalog
name name a variant the catalog does not sell for that series: unknown_product, never
the neighbouring catalog product. Questions written for these tests, not taken from any
labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    "question",
    [
        "苹果16加大版多少钱",
        "苹果15加大版电池多大",
        "华为mate60加强版重量多少",
        "华为六十专业加强版屏幕几寸",
        "小米14加大版有什么颜色",
        "三星s24加强版电池多少毫安",
        "比亚迪汉加强版续航多少",
        "特斯拉model3加大版多重",
    ],
)
def test_an_edition_word_after_a_name_is_a_variant_we_do_not_sell(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "unknown_product"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The same names without the edition word keep their fingerprint.
        ("苹果16多少钱", "iphone_16|price|"),
        ("华为mate60重量多少", "huawei_mate_60|weight|"),
        ("比亚迪汉续航多少", "byd_han|range|"),
        # A variant nickname the catalog does sell still names it.
        ("华为六十专业版屏幕几寸", "huawei_mate_60_pro|screen_size|"),
    ],
)
def test_names_without_an_edition_word_keep_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid
