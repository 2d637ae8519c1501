"""A variant written before its family in brackets ("the Pro Max (iPhone 15)") names the
product as "iPhone 15 Pro Max" does; a variant the store does not sell stays an unknown
product. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("what's the weight of the Pro Max (iPhone 15)", "iphone_15_pro_max|weight|"),
        ("screen size of the Ultra (Galaxy S24)?", "samsung_galaxy_s24_ultra|screen_size|"),
    ],
)
def test_a_variant_before_its_bracketed_family_names_the_variant(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert decided_cid(extractor, text) == cid


def test_an_unsold_variant_before_its_family_is_an_unknown_product(
    extractor: SemanticExtractor,
) -> None:
    assert decided_bypass(extractor, "what's the weight of the Plus (iPhone 15)") == (
        "unknown_product"
    )


def test_a_bracketed_name_part_is_left_as_written(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "MacBook Air (M3) weight") == "macbook_air_m3|weight|"
