"""Reading an extractor decision in the semantic unit tests."""

from __future__ import annotations

from services.core.semantic.fingerprint import Fingerprint


def cid_of(decision: object) -> str | None:
    """The fingerprint's cid, or None for a bypass or no fingerprint."""
    return decision.cid if isinstance(decision, Fingerprint) else None
