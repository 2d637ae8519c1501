"""One number and unit that two attributes' values read (an hour is a delivery time and a
battery life) is two readings, not a store policy's value that outranks the spec.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint


@pytest.mark.parametrize(
    "question",
    ["小米14充电1小时能充满吗", "x1 carbon 一小时能充多少", "iphone 15 2小时"],
)
def test_an_hour_read_two_ways_gets_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, NoFingerprint), decision


def test_a_delivery_question_that_confirms_hours_keeps_its_fingerprint(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("多久能到货，24小时吗")
    assert isinstance(decision, Fingerprint)
    assert decision.cid == "null|delivery_time|"
