"""The extractor's answer: a fingerprint, a bypass, or an honest "don't know".

A :class:`Fingerprint` names the answer class a question belongs to. Two questions
share a fingerprint exactly when they deserve the same cached answer, so everything
that changes the answer (product, attribute, intent, constraints) is in it and
nothing else is (no tenant: the gateway salts keys per tenant itself).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

#: Bumped whenever the canonical serialisation changes, so old keys never collide
#: with new ones.
FINGERPRINT_VERSION = "fp1"

CACHEABLE_INTENTS = frozenset({"query_spec", "query_policy"})
BYPASS_INTENTS = frozenset(
    {"compare", "recommend", "predict", "realtime", "personal", "unknown_product"}
)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A cacheable answer class."""

    product: str | None
    attribute: str
    intent: str
    constraints: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        if self.intent not in CACHEABLE_INTENTS:
            raise ValueError(f"not a cacheable intent: {self.intent!r}")
        if tuple(sorted(self.constraints)) != self.constraints:
            raise ValueError("constraints must be sorted by key")
        if len({key for key, _ in self.constraints}) != len(self.constraints):
            raise ValueError("a constraint key may appear only once")

    @property
    def cid(self) -> str:
        """The class id in the labelled query sets' format."""
        product = self.product if self.product is not None else "null"
        joined = ",".join(f"{key}={value}" for key, value in self.constraints)
        return f"{product}|{self.attribute}|{joined}"

    @property
    def canonical(self) -> str:
        """Versioned, unambiguous serialisation that :attr:`key` hashes."""
        return f"{FINGERPRINT_VERSION}|{self.intent}|{self.cid}"

    @property
    def key(self) -> str:
        """SHA-256 hex of :attr:`canonical`."""
        return hashlib.sha256(self.canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Bypass:
    """Not cacheable: the answer depends on something a cache cannot hold."""

    intent: str
    reason: str

    def __post_init__(self) -> None:
        if self.intent not in BYPASS_INTENTS:
            raise ValueError(f"not a bypass intent: {self.intent!r}")


@dataclass(frozen=True, slots=True)
class NoFingerprint:
    """Looks cacheable but the extractor is unsure: a miss, never a wrong hit."""

    reason: str


SemanticDecision = Fingerprint | Bypass | NoFingerprint
