"""A first-person clause that only tells the asker's plans (我下周要出国) carries no
forecast of a store rule asked in another clause, as it carries none of a product's spec;
a clause that itself asks the rule ahead (明年还包邮吗) still looks ahead. Questions written
for these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_the_askers_plans_beside_a_policy_are_set_aside(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "下周我要去外地出差，你们一般几天发货") == "null|delivery_time|"


def test_a_policy_asked_ahead_still_looks_ahead(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "我想问一下，明年还包邮吗") == "predict"
