"""The asker's possessive before any name of a store policy is their own case."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "我的普票开好了没",  # 普票: one of the invoice's names, not the listed 发票
        "my vat receipt is missing the company name",
        "我的质保到什么时候",
        "我的保价怎么还没退",
        "is my guarantee transferable",
    ],
)
def test_my_policy_by_any_name_is_personal(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    ("question", "cid"),
    [("普票能开吗", "null|invoice|"), ("质保多久", "null|warranty|")],
)
def test_the_policy_itself_is_the_store_rule(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
