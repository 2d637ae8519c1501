"""A value the asker rejects with a hedging adverb between (256肯定不够用, 128g怕太小) is
ruled out as "512不够" is: no second value of the key. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("256肯定不够用，苹果15 512G多少钱", "iphone_15|price|storage=512GB"),
        ("256怕不够，小米14 512g官方卖多少钱", "xiaomi_14|price|storage=512GB"),
    ],
)
def test_a_hedged_rejection_rules_the_value_out(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_set_aside_but_two_values_without_a_rejection_stay_a_comparison(
    extractor: SemanticExtractor,
) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "256肯定不够用，苹果15 512G多少钱")
        == "iphone_15|price|storage=512GB"
    )
    assert decided_bypass(extractor, "苹果15 256和512G分别多少钱") == "compare"
