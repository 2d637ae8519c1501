"""A fee put first as the topic of an A-not-A 要 with the buyer paying after it (运费要不要
我自己出: "do I pay the shipping myself") asks the store's rule, as 要不要运费 does; any
other object after the A-not-A (要不要我另外加钱买个保险) still asks for advice. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question", ["你们发顺丰吗，运费要不要我自己出啊", "运费的话要不要买家承担"]
)
def test_the_buyer_paying_a_fee_asks_the_rule(extractor: SemanticExtractor, question: str) -> None:
    assert decided_cid(extractor, question) == "null|shipping_fee|"


def test_set_aside_but_advice_after_the_fee_stays_recommend(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert decided_cid(extractor, "运费要不要我出") == "null|shipping_fee|"
    assert decided_bypass(extractor, "运费要不要我另外加钱买个保险") == "recommend"
