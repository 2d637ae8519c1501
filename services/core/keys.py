"""Redis key names. Every key that a script touches for a product carries ``{product}``
as its Redis Cluster hash tag, so one script never spans two slots.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum


class Layer(StrEnum):
    """The answer-cache layers that live in Redis."""

    REQUEST = "req"
    SEMANTIC = "sem"


@dataclass(frozen=True, slots=True)
class KeySpace:
    """Key naming under one prefix (one deployment, or one test)."""

    prefix: str = "cc"

    def generations(self, product: str) -> str:
        return f"{self.prefix}:gen:{{{product}}}"

    def entry(self, product: str, layer: Layer, digest: str) -> str:
        return f"{self.prefix}:e:{{{product}}}:{layer.value}:{digest}"

    def entry_index(self, product: str) -> str:
        """Sorted set of a product's live entries (``<layer>:<digest>`` → expiry ms)."""
        return f"{self.prefix}:idx:{{{product}}}"

    def seen_event(self, product: str, event_id: str) -> str:
        # Event ids come from producers; hash them so no byte of theirs shapes a key.
        digest = hashlib.sha256(event_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"{self.prefix}:seen:{{{product}}}:{digest}"

    def request_pointer(self, digest: str) -> str:
        """Request-layer index: request digest → product (lives in the digest's own slot)."""
        return f"{self.prefix}:rp:{digest}"

    def entry_pattern(self) -> str:
        """For admin/ops tooling and tests only; never used on a request or event path."""
        return f"{self.prefix}:e:*"
