"""A Latin word with "edition" right after a product's name that neither the vocabulary
nor the product's catalog entry knows is an edition the catalog does not list; a number
ending a name and followed by an inch word that is none of the product's screen sizes is
a size, not the model number ("苹果16寸笔记本"). Questions written for these tests, not
taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question", ["Xiaomi 14 lamborghini edition price", "Galaxy S24 Ultra olympic edition weight"]
)
def test_an_edition_word_the_catalog_does_not_know_is_another_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"


@pytest.mark.parametrize("question", ["苹果16寸笔记本多重", "苹果十六寸的笔记本电池多大"])
def test_a_number_before_an_inch_word_is_no_model_number(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("Mate 60 standard edition price", "huawei_mate_60|price|"),
        ("iPhone 15 6.1寸屏幕吗", "iphone_15|screen_size|"),
    ],
)
def test_listed_editions_and_own_sizes_keep_their_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
