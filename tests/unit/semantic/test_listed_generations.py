"""A generation said with a product's name that its catalog names and note do not give
it (a product listed as Gen 12, asked about as Gen 11 in any spelling) is a model we do
not sell; the generation it is listed with still names it. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "text",
    [
        "ThinkPad X1 Carbon Gen 10 重量多少",
        "X1 Carbon gen10 的重量",
        "X1 Carbon 10th gen weight",
        "ThinkPad X1 Carbon 第10代 多重",
        "X1 Carbon 10代 多重",
        "X1 Carbon 第十代 多重",
        "第10代 X1 Carbon 多重",
        "AirPods Pro 2 4代 续航多久",
    ],
)
def test_a_generation_the_catalog_does_not_list_is_an_unknown_model(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_cid(extractor, text) is None
    assert decided_bypass(extractor, text) == "unknown_product"


@pytest.mark.parametrize(
    "text",
    ["ThinkPad X1 Carbon Gen 12 重量多少", "X1 Carbon 12代 多重", "X1 Carbon 12th gen weight"],
)
def test_the_listed_generation_still_names_the_product(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_cid(extractor, text) == "thinkpad_x1_carbon|weight|"
