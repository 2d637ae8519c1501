"""A self-correction standing on its own (不对, 说错了, "i mean") takes back the values
before it and does not negate the one after it: "128g 不对 256g" asks the 256 GB variant.
Taken back with nothing after it, the variant is unknown. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14 256g 不对 512g的官方价多少", "xiaomi_14|price|storage=512GB"),
        ("小米14 256g，说错了，是512g 卖多少", "xiaomi_14|price|storage=512GB"),
        ("小米14那个 不对 512G版本定价多少", "xiaomi_14|price|storage=512GB"),
        ("xiaomi 14 256gb i mean 512gb, list price?", "xiaomi_14|price|storage=512GB"),
    ],
)
def test_the_value_after_a_correction_is_the_one_meant(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    ["小米14 256g 不对 多少钱", "小米14 不对吧 512g多少钱"],
)
def test_a_value_taken_back_or_a_doubt_leaves_the_variant_unknown(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None
