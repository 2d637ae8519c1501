"""A variant word with an edition head that stands apart from the product's name ("那个
plus版本", "the ultra edition") names a variant; of another variant than the name's, the
question is not about the product named. Transliterated variant words (普拉斯) read so
there too. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "Galaxy S24 那个 plus 版本电池多大",
        "小米14，就是那个乌特拉版，重量多少",
        "what's the weight of the pro model of the Xiaomi 14",
        "Mate 60 the plus edition, battery capacity?",
    ],
)
def test_another_variant_named_apart_gets_no_key_of_the_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("Galaxy S24 Ultra 的 ultra 版本多重", "samsung_galaxy_s24_ultra|weight|"),
        ("Mate 60 Pro, the pro model, weight?", "huawei_mate_60_pro|weight|"),
        ("Galaxy S24 电池多大", "samsung_galaxy_s24|battery_capacity|"),
    ],
)
def test_the_names_own_variant_word_or_none_keeps_the_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
