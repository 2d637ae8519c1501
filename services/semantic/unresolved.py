"""Learning from traffic: a bounded Redis store of what ended in no fingerprint.

The gateway's extractor is wrapped by :class:`RecordingExtractor`: when a decision is no
fingerprint (or an unknown product), the extractor's redacted ``unresolved_terms``
(product-like mentions, bare brands, unknown words, the reason) are counted in one Redis
sorted set per deployment, ``<prefix>:sem:unresolved``, trimmed to the
:data:`DEFAULT_CAP` most frequent terms. Recording never delays or fails a request: it runs
as a background task on the running event loop, at most :data:`MAX_IN_FLIGHT` at a time,
and a Redis error only increments :attr:`RecordingExtractor.dropped`.

``cachecoh semantic unresolved`` lists the counts, so operators can add aliases to
``catalog.json`` (which take effect at the next start, without code changes).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from redis.exceptions import RedisError

from services.adapters.redis_tag_store import RedisClient
from services.core.semantic.fingerprint import Fingerprint, SemanticDecision

DEFAULT_CAP = 5_000
MAX_IN_FLIGHT = 64


class _Explaining(Protocol):
    def decide(self, text: str) -> SemanticDecision: ...
    def unresolved_terms(self, text: str, decision: SemanticDecision) -> tuple[str, ...]: ...


def unresolved_key(prefix: str) -> str:
    return f"{prefix}:sem:unresolved"


class UnresolvedStore:
    """Counted terms in one capped sorted set."""

    def __init__(self, client: RedisClient, prefix: str, cap: int = DEFAULT_CAP) -> None:
        self._client = client
        self._key = unresolved_key(prefix)
        self._cap = cap

    async def record(self, terms: tuple[str, ...]) -> None:
        if not terms:
            return
        pipe = self._client.pipeline(transaction=False)
        for term in terms:
            pipe.zincrby(self._key, 1, term)
        # Keep the most frequent ``cap`` terms: memory stays bounded whatever the traffic.
        pipe.zremrangebyrank(self._key, 0, -(self._cap + 1))
        await pipe.execute()

    async def top(self, limit: int) -> list[tuple[str, int]]:
        rows: list[Any] = list(
            await self._client.zrevrange(self._key, 0, limit - 1, withscores=True)
        )
        return [
            (row[0].decode() if isinstance(row[0], bytes) else str(row[0]), int(row[1]))
            for row in rows
        ]


class RecordingExtractor:
    """The extractor, recording what ended in no fingerprint (fire and forget)."""

    def __init__(self, inner: _Explaining, store: UnresolvedStore) -> None:
        self._inner = inner
        self._store = store
        self._in_flight: set[asyncio.Task[None]] = set()
        self.dropped = 0

    def decide(self, text: str) -> SemanticDecision:
        decision = self._inner.decide(text)
        if not isinstance(decision, Fingerprint):
            self._record(text, decision)
        return decision

    def _record(self, text: str, decision: SemanticDecision) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a script or a test calling decide directly)
        if len(self._in_flight) >= MAX_IN_FLIGHT:
            self.dropped += 1
            return
        terms = self._inner.unresolved_terms(text, decision)
        if not terms:
            return
        task = loop.create_task(self._write(terms))
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def _write(self, terms: tuple[str, ...]) -> None:
        try:
            await self._store.record(terms)
        except (RedisError, OSError):
            self.dropped += 1
