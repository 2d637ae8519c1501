"""Values the gateway's pipeline passes around: statuses, replies, keys, its policy."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from services.core.cache_control import CacheControls
from services.core.catalog import ProductFacts
from services.core.chat_request import ChatRequest
from services.core.csr import CostLayer
from services.core.entries import Snapshot
from services.core.keys import Layer
from services.core.prompt import SopCatalog
from services.core.semantic.fingerprint import Fingerprint
from services.core.tags import Tag

LAYER_NAMES = {Layer.REQUEST: "request", Layer.SEMANTIC: "semantic"}


class CacheState(StrEnum):
    HIT = "HIT"
    MISS = "MISS"
    BYPASS = "BYPASS"
    STALE = "STALE"


@dataclass(frozen=True, slots=True)
class CacheStatus:
    state: CacheState
    layer: Layer | None = None
    reason: str | None = None

    def header(self) -> str:
        parts = [self.state.value]
        if self.layer is not None:
            parts.append(f"layer={LAYER_NAMES[self.layer]}")
        if self.reason is not None:
            parts.append(f"reason={self.reason}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What the route sends: a JSON completion or an SSE event stream."""

    status: CacheStatus
    headers: Mapping[str, str]
    body: bytes | None = None
    events: AsyncIterator[bytes] | Iterable[bytes] | None = None


@dataclass(frozen=True, slots=True)
class GatewayPolicy:
    """The pipeline's knobs (from ``GatewaySettings``)."""

    request_key_secret: bytes
    cache_salt_key: bytes
    sop: SopCatalog
    request_ttl_s: int
    semantic_ttl_s: int
    allow_temperature_cache: bool = False
    assumed_default_temperature: float = 1.0
    lease_wait_s: float = 30.0
    lease_poll_s: float = 0.02
    fallback_message: str = "Please try again in a minute."
    #: After a Redis error, requests skip Redis this long (no per-request timeouts).
    store_retry_s: float = 1.0
    #: Bounded work per request (docs/gateway.md, "Hostile input"):
    #: deepest JSON nesting of a body (else 400),
    max_json_depth: int = 64
    #: longer questions skip fingerprinting and the semantic layer,
    max_question_chars: int = 512
    #: requests with more message text are forwarded unkeyed, never cached,
    max_keyed_chars: int = 16_384
    #: longer texts are redacted and fingerprinted in a worker thread,
    offload_chars: int = 256
    #: and larger bodies decoded and validated there.
    offload_body_bytes: int = 64 * 1024


@dataclass(frozen=True, slots=True)
class AnswerKeys:
    """Where one fingerprinted request's answer lives in each enabled layer."""

    product: str
    tags: frozenset[Tag]
    request: str | None
    semantic: str | None

    @property
    def flight(self) -> tuple[Layer, str]:
        if self.semantic is not None:
            return Layer.SEMANTIC, self.semantic
        assert self.request is not None
        return Layer.REQUEST, self.request

    def digest(self, layer: Layer) -> str | None:
        return self.request if layer is Layer.REQUEST else self.semantic

    def header(self, layer: Layer | None = None) -> str:
        layer = layer or (Layer.REQUEST if self.request is not None else Layer.SEMANTIC)
        return f"{layer.value}:{self.product}:{self.digest(layer)}"


@dataclass(slots=True)
class ChatCall:
    """One chat completion in flight through the pipeline."""

    tenant: str
    body: dict[str, Any]
    request: ChatRequest
    controls: CacheControls
    request_digest: str
    started: float
    #: False once Redis failed for this request (or is in its back-off): skip the caches.
    store_ok: bool = True
    #: Layers looked up so far (what the cost ledger charges lookups to).
    looked_up: list[CostLayer] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FillPlan:
    """What a miss's answer is stored under, guarded by the snapshot taken before the facts."""

    keys: AnswerKeys
    snapshot: Snapshot | None
    fingerprint: Fingerprint
    facts: tuple[ProductFacts, ...]
    request_ttl_ms: int
    semantic_ttl_ms: int
    no_store: bool


@dataclass(frozen=True, slots=True)
class PurgeResult:
    tag: str
    generation: int | None
