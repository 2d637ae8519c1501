"""Logistics questions with places and times. A weekday or "weekends" in general leaves a
store rule a rule ("周末也发货吗"); this weekend, today, same day, this Saturday and a queue
are the moment (realtime). A market's edition of a catalog product ("the Japanese ...",
"global ROM") is a product the catalog does not list. A stated term of the return policy
(opened or not) names that policy over the fee of sending it back. "要不要钱" asks a fee,
not advice; "orders going to X" is a destination, not the future. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import cid_of, decided_bypass


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("下周末能送到吗", "realtime"),
        ("周末前能发货吗", "realtime"),
        ("深圳能当天提货吗", "realtime"),
        ("can I pick it up this friday", "realtime"),
        ("how long is the queue at the service center", "realtime"),
        ("the korean galaxy s24 weight", "unknown_product"),
        ("does the global version xiaomi 14 have nfc", "unknown_product"),
    ],
)
def test_the_moment_or_the_edition_bypasses(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("周末下单也包邮吗", "null|shipping_fee|"),
        ("拆封了的话退货寄回运费谁出", "null|return_policy|item_state=opened"),
        ("寄到偏远地区运费要不要钱", "null|shipping_fee|"),
        ("for orders going to remote areas, is shipping free?", "null|shipping_fee|"),
    ],
)
def test_the_rule_keeps_its_key(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid
