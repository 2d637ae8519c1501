"""What the gateway's pipeline needs from the outside world (Redis, upstream, spec store,
the semantic extractor, the PII redactor), as protocols; adapters implement them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol

from services.adapters.gateway_redis import Admission, EntryRecord, SwitchState
from services.adapters.redis_tag_store import Lookup
from services.adapters.upstream_http import UpstreamAnswer
from services.core.catalog import ProductFacts
from services.core.entries import Snapshot
from services.core.keys import Layer
from services.core.mapping import ProductBump
from services.core.redaction import Redaction
from services.core.semantic.fingerprint import SemanticDecision


class AnswerStore(Protocol):
    async def snapshot(self, product: str, fields: Sequence[str]) -> Snapshot: ...
    async def lookup(self, product: str, layer: Layer, digest: str) -> Lookup: ...
    async def lookup_request(self, digest: str) -> Lookup: ...
    async def fill(
        self, layer: Layer, digest: str, snapshot: Snapshot, body: bytes, ttl_ms: int
    ) -> bool: ...


class BumpOutcome(Protocol):
    @property
    def generations(self) -> tuple[tuple[str, int], ...]: ...


class GenerationBumper(Protocol):
    async def bump(self, bump: ProductBump, *, event_id: str, spec_version: int) -> BumpOutcome: ...


class RequestPointerStore(Protocol):
    async def product_of(self, digest: str) -> str | None: ...
    async def point(self, digest: str, product: str, ttl_ms: int) -> None: ...


class LeaseStore(Protocol):
    async def acquire(self, key: str) -> str | None: ...
    async def held(self, key: str) -> bool: ...
    async def release(self, key: str, token: str) -> None: ...


class TokenBucket(Protocol):
    async def take(self, key: str) -> Admission: ...


class FillBreaker(Protocol):
    async def record_miss(self, key: str) -> Admission: ...


class KillSwitches(Protocol):
    @property
    def state(self) -> SwitchState: ...
    async def set(self, layer: str, enabled: bool) -> SwitchState: ...
    async def refresh(self) -> SwitchState: ...


class EventStream(Protocol):
    """An open upstream SSE stream: the ``data:`` payloads, then ``aclose``."""

    @property
    def duration_s(self) -> float: ...
    def events(self) -> AsyncIterator[str]: ...
    async def aclose(self) -> None: ...


class Upstream(Protocol):
    async def complete(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> UpstreamAnswer: ...
    async def open_stream(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> EventStream: ...


class FactsSource(Protocol):
    async def read(self, product: str, *, with_store: bool) -> tuple[ProductFacts, ...] | None: ...


class Extractor(Protocol):
    def decide(self, text: str) -> SemanticDecision: ...


class PiiFinder(Protocol):
    def redact(self, text: str) -> Redaction: ...


class EntryReader(Protocol):
    async def read(self, product: str, layer: Layer, digest: str) -> EntryRecord | None: ...
