"""Values the gateway's pipeline passes around: statuses, replies, keys, its policy."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from services.core.cache_control import CacheControls
from services.core.canonical_question import QuestionVocabulary
from services.core.catalog import ProductFacts
from services.core.chat_request import ChatRequest
from services.core.csr import CostLayer
from services.core.entries import Snapshot
from services.core.keys import Layer
from services.core.product_mentions import ProductNames
from services.core.prompt import SopCatalog
from services.core.semantic.fingerprint import Fingerprint
from services.core.tags import Tag

LAYER_NAMES = {Layer.REQUEST: "request", Layer.SEMANTIC: "semantic"}


#: The upstream completion an answer comes from (a hit's body has an id of its own).
ORIGIN_HEADER = "x-cache-origin"


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


#: Parameters the gateway sets itself for the answers it grounds and caches (the
#: client's values are dropped): with them in the client's hands, one client's
#: sampling would decide what every other asker of the question gets.
SAMPLING_PARAMS = frozenset(
    {
        "temperature",
        "top_p",
        "top_k",
        "min_p",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "repetition_penalty",
    }
)


@dataclass(frozen=True, slots=True)
class AnswerPolicy:
    """How one tenant's answers are sampled and which are cached."""

    #: Temperature of the answers the gateway grounds from a fingerprint.
    answer_temperature: float = 0.0
    #: Cache general answers sampled with temperature > 0 (off: a client asking for
    #: sampled output asks for a fresh sample, not someone else's).
    cache_sampled: bool = False

    def answer_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The client's output parameters with the gateway's sampling in place of its own."""
        out = {k: v for k, v in params.items() if k not in SAMPLING_PARAMS}
        temperature = self.answer_temperature
        out["temperature"] = int(temperature) if temperature.is_integer() else temperature
        return out

    def sampling_header(self) -> str:
        return f"gateway; temperature={self.answer_temperature:g}"


@dataclass(frozen=True, slots=True)
class GatewayPolicy:
    """The pipeline's knobs (from ``GatewaySettings``)."""

    request_key_secret: bytes
    cache_salt_key: bytes
    sop: SopCatalog
    request_ttl_s: int
    semantic_ttl_s: int
    vocabulary: QuestionVocabulary
    products: ProductNames
    answers: AnswerPolicy = AnswerPolicy()
    #: Per-tenant overrides of ``answers``.
    tenant_answers: Mapping[str, AnswerPolicy] = field(default_factory=dict)
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

    def answers_for(self, tenant: str) -> AnswerPolicy:
        return self.tenant_answers.get(tenant, self.answers)


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
    #: The messages with personal data replaced by placeholders (what may be stored).
    redacted: tuple[Mapping[str, Any], ...]
    answers: AnswerPolicy
    #: Answer language (``Content-Language`` or detected from the question).
    language: str
    #: Who holds the API key (a digest): per-client limits of cache-overriding controls.
    client: str = ""
    #: False once Redis failed for this request (or is in its back-off): skip the caches.
    store_ok: bool = True
    #: Layers looked up so far (what the cost ledger charges lookups to).
    looked_up: list[CostLayer] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FillPlan:
    """What a miss's answer is stored under, guarded by the snapshot taken before the facts."""

    keys: AnswerKeys
    snapshot: Snapshot | None
    #: None for a general answer (no fingerprint, no facts).
    fingerprint: Fingerprint | None
    facts: tuple[ProductFacts, ...]
    request_ttl_ms: int
    semantic_ttl_ms: int
    no_store: bool


@dataclass(frozen=True, slots=True)
class PurgeResult:
    tag: str
    generation: int | None
