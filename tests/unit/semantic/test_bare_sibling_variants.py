"""A bare variant word after a conjunction names the product's sibling: a comparison."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "Galaxy S24 和 Ultra 屏幕多大",
        "苹果15跟Pro重量",
        "iPhone 15 Pro or Pro Max weight",
    ],
)
def test_a_bare_sibling_after_a_conjunction_is_a_comparison(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "compare"


def test_the_variant_in_the_name_is_the_product(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "Galaxy S24 Ultra 重量") == "samsung_galaxy_s24_ultra|weight|"
