"""Round 10 (issue 15), editions: the edition word 版 right after a variant word (pro版,
迷你版) names that variant's edition, read as the variant word alone: a variant the
catalog sells keeps its fingerprint, one it does not sell stays unknown; base-edition
words (标准版) and car trims written with 版 keep their readings. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.transliteration import edition_words
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_edition_words_are_what_one_variant_suffix_adds_to_another() -> None:
    assert edition_words(["pro", "pro版", "max", "max版", "pro max", "dm", "dm i"]) == {"版"}
    assert edition_words(["青春版", "加强版", "专业加强版"]) == frozenset()


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("苹果16 pro版有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16pro版有几种颜色", "iphone_16_pro|colors|"),
        ("iphone 16 pro版有几种颜色", "iphone_16_pro|colors|"),
        ("苹果15 pro max版颜色", "iphone_15_pro_max|colors|"),
        ("华为mate 60 pro版多少钱", "huawei_mate_60_pro|price|"),
        ("三星s24 ultra版多少钱", "samsung_galaxy_s24_ultra|price|"),
        ("苹果16普罗版有几种颜色", "iphone_16_pro|colors|"),
        # the words that already worked keep working
        ("苹果16 pro有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16 pro款有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16标准版有几种颜色", "iphone_16|colors|"),
        ("华为mate60专业版多少钱", "huawei_mate_60_pro|price|"),
        ("model 3 长续航版 续航", "tesla_model_3|range|trim=long_range"),
        ("汉 EV 续航", "byd_han|range|"),
        ("汉 EV版 续航", "byd_han|range|"),
    ],
)
def test_a_sold_variant_with_its_edition_word_keeps_its_name(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "苹果16迷你版有几种颜色",
        "苹果16迷你有几种颜色",
        "iphone 16 mini版颜色",
        "苹果16 plus版多少钱",
        "苹果16 pro max版颜色",
        "小米14 ultra版多少钱",
    ],
)
def test_a_variant_not_sold_with_its_edition_word_stays_unknown(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"
