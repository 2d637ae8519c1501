"""A quantifier over a product's variants (各版本, 不同配置, "all trims") asks every variant:
the unconstrained class of the attribute, not a variant the extractor cannot read. A
variant hint outside the quantifier still stops it. Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("三星S24 Ultra官方价多少 各版本都说一下", "samsung_galaxy_s24_ultra|price|"),
        ("特斯拉Model 3售价多少 不同版本分别多少", "tesla_model_3|price|"),
        ("比亚迪汉续航多少公里，各个版本的都要", "byd_han|range|"),
        ("model y range for all trims", "tesla_model_y|range|"),
    ],
)
def test_a_quantified_variant_word_asks_the_unconstrained_class(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    ["三星S24 Ultra顶配多少钱 各版本也说下", "model y 高配版价格多少"],
)
def test_a_variant_hint_outside_the_quantifier_still_counts(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


def test_variants_asked_to_be_alike_are_compared_not_listed(
    extractor: SemanticExtractor,
) -> None:
    assert decided_cid(extractor, "三星S24 Ultra各版本的价格都一样吗") is None


@pytest.mark.parametrize(
    "question",
    [
        "小米14各存储版本续航相同吗",  # the quantified variant word is an attribute cue too
        "MacBook Air M3 所有配置重量一样吗",
        "Galaxy S24 不同配色价格一样吗",
        "is the weight the same across all the MacBook Air M3 configurations",
        "do all capacities of the Xiaomi 14 cost the same",
    ],
)
def test_a_sameness_question_over_all_variants_is_a_comparison(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "compare"


@pytest.mark.parametrize(
    "question",
    [
        "MacBook Air M3 在你们家和京东自营价格一样吗",
        "is the warranty on the Galaxy S24 the same as at the Samsung store",
    ],
)
def test_this_store_against_another_shop_is_a_comparison(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "compare"
