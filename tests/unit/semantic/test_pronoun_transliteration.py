"""Pronouns and the prepositions of whom for (给我女儿, 给你) are never transliterations of a
variant word after a model number. Questions written for these tests, not taken from any
labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question", ["买AirPods Pro 2给我女儿，续航多久", "我想买AirPods Pro 2给你看看，续航多久"]
)
def test_a_pronoun_after_the_name_is_no_variant(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) != "unknown_product"
    assert decided_cid(extractor, question) == "airpods_pro_2|battery_life|"


def test_set_aside_but_mini_is_still_read(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "买AirPods Pro 2给我女儿，续航多久") == "airpods_pro_2|battery_life|"
    )
    assert decided_bypass(extractor, "苹果15迷你屏幕多大") == "unknown_product"
