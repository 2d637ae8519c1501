"""The words a quantifier over the variants governs ("every storage option", 各存储版本)
name what another attribute is asked over, not what is asked; alone they are the
question. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.constraints import quantified_variant_spans
from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    "question",
    [
        "galaxy s24 price of every storage option",
        "galaxy s24 price for all storage options",
        "三星S24 各存储版本价格",
    ],
)
def test_the_attribute_asked_over_the_variants_is_the_key(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _key(extractor, question) == "samsung_galaxy_s24|price|"


def test_the_quantified_words_alone_are_the_question(extractor: SemanticExtractor) -> None:
    assert _key(extractor, "galaxy s24 all storage options") == "samsung_galaxy_s24|storage|"


def test_a_question_whether_variants_are_alike_quantifies_nothing() -> None:
    assert quantified_variant_spans("各版本价格一样吗") == []
    assert quantified_variant_spans("各版本价格") == [(0, 3)]
