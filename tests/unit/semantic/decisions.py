"""Reading an extractor decision in the semantic unit tests."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint


def cid_of(decision: object) -> str | None:
    """The fingerprint's cid, or None for a bypass or no fingerprint."""
    return decision.cid if isinstance(decision, Fingerprint) else None


def decided_cid(extractor: SemanticExtractor, question: str) -> str | None:
    """The cid the extractor gives ``question``, or None."""
    return cid_of(extractor.decide(question))


def decided_bypass(extractor: SemanticExtractor, question: str) -> str | None:
    """The bypass intent the extractor gives ``question``, or None."""
    decision = extractor.decide(question)
    return decision.intent if isinstance(decision, Bypass) else None


def rules_cid(extractor: SemanticExtractor, question: str) -> str | None:
    """The cid the rules alone (no second reader) give ``question``, or None."""
    decision = extractor.decide(question, second_reader=False)
    return decision.cid if isinstance(decision, Fingerprint) else None
