"""Numbers listed before one duration share its unit ("3/6/12 months", "3、6、12期"); a
listed value of another kind is still a value of its own. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    "question",
    [
        "can I pay in installments of 3/6/12 months?",
        "分期支持3、6、12期吗",
        "分期 6 / 12 个月可以吗",
    ],
)
def test_numbers_listed_before_a_duration_are_durations(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _key(extractor, question) == "null|installment|"


def test_listed_storage_sizes_are_still_several_values(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iPhone 15 128/256GB 多少钱")
    assert isinstance(decision, Bypass), decision
