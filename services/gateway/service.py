"""The gateway's request pipeline: pure decisions from ``services.core``, I/O through ports.

Per chat completion (docs/gateway.md has the full flow):

1. validate, normalise, redact personal data, derive the tenant-salted request key;
   requests with personal data, sampled output (temperature > 0, unless allowed),
   several choices or non-text turns are *bypassed*: forwarded as they came, never stored;
2. request layer: pointer → product, then one Lua lookup (2 Redis round trips);
3. admission and fingerprint (the semantic extractor); bypass intents and questions
   without a fingerprint go straight upstream (an entry without tags could never be
   invalidated);
4. semantic layer (single questions only): one Lua lookup; a hit is promoted into the
   request layer through the same guarded fill;
5. miss: single flight per key (in-process futures plus a Redis lease across replicas),
   the fill breaker and the token bucket, then: snapshot the tags' generations → read
   the facts → build the canonical prompt → call upstream → guarded fills of both
   layers with the same snapshot. A refused fill is counted; the answer still goes to
   its caller.

Any Redis failure fails open: the request is answered from upstream and counted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

import orjson

from services.adapters.redis_tag_store import Lookup, LookupStatus
from services.core.answers import (
    SSE_DONE,
    AnswerFormatError,
    AnswerMeta,
    CachedAnswer,
    NotCacheable,
    StreamAssembly,
    age_seconds,
    answer_texts,
    check_cacheable,
    decode_answer,
    encode_answer,
    etag_of,
    replay_stream,
    sse_event,
)
from services.core.cache_control import CacheControls
from services.core.catalog import STORE_PRODUCT_ID, ProductFacts
from services.core.csr import CostLayer, Usage
from services.core.entries import Snapshot
from services.core.errors import CachecohError, DatabaseUnavailable, StoreUnavailable
from services.core.keys import Layer
from services.core.mapping import ProductBump
from services.core.prompt import (
    ConversationTurn,
    PromptInputs,
    SopCatalog,
    apply_tenant_salt,
    build_prompt,
)
from services.core.redaction import PiiKind, Redaction
from services.core.request_key import (
    ChatRequest,
    InvalidRequest,
    Question,
    canonical_request,
    canonical_semantic,
    parse_chat_request,
    question_of,
    redact_messages,
    salted_digest,
)
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint, SemanticDecision
from services.core.tags import Tag, answer_tags, parse_field
from services.gateway.costs import CostLedger
from services.gateway.memo import DigestMemo
from services.gateway.metrics import GatewayMetrics
from services.gateway.redis_controls import Admission, EntryRecord, SwitchState
from services.gateway.upstream import UpstreamAnswer, UpstreamError, UpstreamStream

log = logging.getLogger(__name__)

LAYER_NAMES = {Layer.REQUEST: "request", Layer.SEMANTIC: "semantic"}
PREFIX_ROUTING_HEADER = "x-cachecoh-prefix-routing"


# -- errors the routes translate -------------------------------------------------------


class Unauthorized(CachecohError):
    def __init__(self, message: str = "invalid or missing API key") -> None:
        self.message = message
        super().__init__(message)


class RateLimited(CachecohError):
    """The key's token bucket is empty: the miss path may not call upstream yet."""

    def __init__(self, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(f"too many upstream calls for this question; retry in {retry_after_s} s")


class BreakerOpen(CachecohError):
    """The key missed too often this minute: answered with the fallback, not upstream."""

    def __init__(self, retry_after_s: int, message: str) -> None:
        self.retry_after_s = retry_after_s
        self.message = message
        super().__init__(message)


class UnknownCacheKey(CachecohError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__("cache key must be '<req|sem>:<product>:<digest>'")


# -- ports ----------------------------------------------------------------------------


class AnswerStore(Protocol):
    async def snapshot(self, product: str, fields: Sequence[str]) -> Snapshot: ...
    async def lookup(self, product: str, layer: Layer, digest: str) -> Lookup: ...
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


class Upstream(Protocol):
    async def complete(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> UpstreamAnswer: ...
    async def open_stream(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> UpstreamStream: ...


class FactsSource(Protocol):
    async def read(self, product: str, *, with_store: bool) -> tuple[ProductFacts, ...] | None: ...


class Extractor(Protocol):
    def decide(self, text: str) -> SemanticDecision: ...


class PiiFinder(Protocol):
    def redact(self, text: str) -> Redaction: ...


class EntryReader(Protocol):
    async def read(self, product: str, layer: Layer, digest: str) -> EntryRecord | None: ...


# -- values -----------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class _Keys:
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

    def header(self, layer: Layer | None = None) -> str:
        layer = layer or (Layer.REQUEST if self.request is not None else Layer.SEMANTIC)
        digest = self.request if layer is Layer.REQUEST else self.semantic
        return f"{layer.value}:{self.product}:{digest}"


@dataclass(slots=True)
class _Call:
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


@dataclass(slots=True)
class _Flight:
    """An in-process single flight: waiters await ``future`` for the stored body."""

    key: str
    layer: Layer
    future: asyncio.Future[bytes | None]
    deadline: float
    token: str | None = None
    body: bytes | None = None
    finished: bool = False
    #: Set when a streamed answer's generator took over finishing the flight.
    handed_to_stream: bool = False


@dataclass(frozen=True, slots=True)
class _FillPlan:
    keys: _Keys
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


@dataclass
class GatewayService:
    store: AnswerStore
    pointers: RequestPointerStore
    leases: LeaseStore
    bucket: TokenBucket
    breaker: FillBreaker
    switches: KillSwitches
    upstream: Upstream
    facts: FactsSource
    extractor: Extractor
    redactor: PiiFinder
    policy: GatewayPolicy
    metrics: GatewayMetrics
    costs: CostLedger | None = None
    memo_entries: int = 8192
    clock: Callable[[], float] = time.time
    _flights: dict[str, _Flight] = field(default_factory=dict, init=False)
    _background: set[asyncio.Task[None]] = field(default_factory=set, init=False)
    _store_down_until: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._redactions: DigestMemo[Redaction] = DigestMemo(self.memo_entries)
        self._decisions: DigestMemo[SemanticDecision] = DigestMemo(self.memo_entries)
        m = self.metrics
        self._hit_counters = {
            layer: (
                m.responses.labels("HIT", LAYER_NAMES[layer]),
                m.lookups.labels(LAYER_NAMES[layer], "hit"),
            )
            for layer in Layer
        }
        self._miss_lookups = {
            layer: m.lookups.labels(LAYER_NAMES[layer], "miss") for layer in Layer
        }

    # -- entry point ----------------------------------------------------------------

    async def chat(self, tenant: str, raw: bytes, controls: CacheControls) -> ChatReply:
        started = time.perf_counter()
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise InvalidRequest("body", "is not valid JSON") from exc
        request = parse_chat_request(body)
        redacted, findings = self._redact(request)
        canonical = canonical_request(request.model, redacted, request.params)
        digest = salted_digest(
            self.policy.request_key_secret, tenant, controls.namespace, canonical
        )
        call = _Call(
            tenant,
            body,
            request,
            controls,
            digest,
            started,
            store_ok=time.monotonic() >= self._store_down_until,
        )
        if findings:
            for kind in findings:
                self.metrics.pii_redactions.labels(kind.value).inc()
            return await self._bypass(call, "personal_data")
        if (
            request.temperature(self.policy.assumed_default_temperature) > 0
            and not self.policy.allow_temperature_cache
        ):
            return await self._bypass(call, "temperature")
        if request.params.get("n", 1) != 1:
            return await self._bypass(call, "several_choices")
        question = question_of(request.messages)
        if question is None:
            return await self._bypass(call, "unsupported_messages")

        switches = self.switches.state
        stale: Layer | None = None
        if not switches.request:
            self.metrics.bypass_reasons.labels("request", "kill_switch").inc()
        elif not controls.no_cache and call.store_ok:
            call.looked_up.append(CostLayer.REQUEST)
            try:
                found: CachedAnswer | LookupStatus = await self._lookup_request(digest)
            except StoreUnavailable:
                self._store_failed(call, "request_lookup")
                found = LookupStatus.MISS
            if isinstance(found, CachedAnswer):
                if controls.accepts_age(found.age(self.clock())):
                    return self._hit(call, found, Layer.REQUEST, digest)
            elif found is LookupStatus.STALE:
                stale = Layer.REQUEST

        decision = self._decisions.get(question.text, self.extractor.decide)
        if isinstance(decision, Bypass):
            return await self._bypass(call, decision.intent)
        if isinstance(decision, NoFingerprint):
            return await self._bypass(call, "no_fingerprint")
        keys = self._keys(call, question, decision, switches)
        if keys.request is None and keys.semantic is None:
            return await self._bypass(call, "kill_switch")

        if keys.semantic is not None and not controls.no_cache and call.store_ok:
            call.looked_up.append(CostLayer.SEMANTIC)
            try:
                lookup = await self.store.lookup(keys.product, Layer.SEMANTIC, keys.semantic)
            except StoreUnavailable:
                self._store_failed(call, "semantic_lookup")
                lookup = Lookup(LookupStatus.MISS)
            answer = self._found(Layer.SEMANTIC, lookup)
            if answer is not None and controls.accepts_age(answer.age(self.clock())):
                self._promote(call, keys, answer)
                return self._hit(call, answer, Layer.SEMANTIC, keys.semantic)
            if lookup.status is LookupStatus.STALE and stale is None:
                stale = Layer.SEMANTIC
        if not call.store_ok:
            # Fail open: a grounded answer from upstream, nothing read from or written to
            # Redis (no lease, breaker, bucket or fill either).
            self.metrics.bypass_reasons.labels("all", "store_unavailable").inc()
            status = CacheStatus(CacheState.BYPASS, reason="store_unavailable")
            return await self._own_call(call, question, decision, keys, status, None)
        return await self._miss(call, question, decision, keys, stale)

    # -- lookups --------------------------------------------------------------------

    def _redact(self, request: ChatRequest) -> tuple[tuple[Mapping[str, Any], ...], list[PiiKind]]:
        findings: list[PiiKind] = []

        def redact(text: str) -> str:
            redaction = self._redactions.get(text, self.redactor.redact)
            findings.extend(f.kind for f in redaction.findings)
            return redaction.text

        return redact_messages(request.messages, redact), findings

    def _found(self, layer: Layer, lookup: Lookup) -> CachedAnswer | None:
        if lookup.status is LookupStatus.STALE:
            self.metrics.stale_lookups.labels(LAYER_NAMES[layer]).inc()
            self.metrics.lookups.labels(LAYER_NAMES[layer], "stale").inc()
            return None
        if lookup.status is LookupStatus.MISS or lookup.body is None:
            self._miss_lookups[layer].inc()
            return None
        try:
            return decode_answer(lookup.body)
        except AnswerFormatError:
            self._miss_lookups[layer].inc()
            return None

    async def _lookup_request(self, digest: str) -> CachedAnswer | LookupStatus:
        product = await self.pointers.product_of(digest)
        if product is None:
            self._miss_lookups[Layer.REQUEST].inc()
            return LookupStatus.MISS
        lookup = await self.store.lookup(product, Layer.REQUEST, digest)
        answer = self._found(Layer.REQUEST, lookup)
        return answer if answer is not None else lookup.status

    def _keys(
        self, call: _Call, question: Question, fingerprint: Fingerprint, switches: SwitchState
    ) -> _Keys:
        product = fingerprint.product or STORE_PRODUCT_ID
        tags = answer_tags(
            product,
            fingerprint.intent,
            (fingerprint.attribute,),
            (v for _, v in fingerprint.constraints),
        )
        semantic: str | None = None
        if not switches.semantic:
            self.metrics.bypass_reasons.labels("semantic", "kill_switch").inc()
        elif not question.single:
            self.metrics.bypass_reasons.labels("semantic", "multi_turn").inc()
        else:
            semantic = salted_digest(
                self.policy.request_key_secret,
                call.tenant,
                call.controls.namespace,
                canonical_semantic(
                    call.request.model, question.system_prompt, call.request.params, fingerprint
                ),
            )
        return _Keys(product, tags, call.request_digest if switches.request else None, semantic)

    # -- replies --------------------------------------------------------------------

    def _hit(self, call: _Call, answer: CachedAnswer, layer: Layer, digest: str) -> ChatReply:
        responses, lookups = self._hit_counters[layer]
        responses.inc()
        lookups.inc()
        if self.costs is not None:
            usage = Usage(answer.meta.prompt_tokens, answer.meta.completion_tokens)
            self.costs.hit(
                call.request.model, CostLayer(LAYER_NAMES[layer]), usage, len(call.looked_up)
            )
        status = CacheStatus(CacheState.HIT, layer)
        headers = {
            "x-cache": status.header(),
            "x-cache-key": f"{layer.value}:{answer.meta.product}:{digest}",
            "age": str(answer.age(self.clock())),
            "etag": answer.meta.etag,
            "surrogate-key": answer.meta.surrogate_key,
        }
        if call.request.stream:
            response = orjson.loads(answer.response)
            events = replay_stream(
                response, answer.meta.chunks, include_usage=call.request.include_usage
            )
            return ChatReply(status, headers, events=events)
        return ChatReply(status, headers, body=answer.response)

    def _promote(self, call: _Call, keys: _Keys, answer: CachedAnswer) -> None:
        """Copy a semantic answer into the request layer (guarded by its own snapshot)."""
        if keys.request is None or call.controls.no_store:
            return
        snapshot = Snapshot(answer.meta.product, answer.meta.generations)
        body = encode_answer(replace(answer.meta, layer=Layer.REQUEST.value), answer.response)
        ttl_ms = (call.controls.ttl_s or self.policy.request_ttl_s) * 1000
        digest = keys.request

        async def promote() -> None:
            try:
                if await self.store.fill(Layer.REQUEST, digest, snapshot, body, ttl_ms):
                    await self.pointers.point(digest, snapshot.product, ttl_ms)
                    self.metrics.fills.labels("request").inc()
                else:
                    self.metrics.fill_refused.labels("request").inc()
            except StoreUnavailable:
                self.metrics.store_errors.labels("promote").inc()

        task = asyncio.create_task(promote())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _store_failed(self, call: _Call, operation: str) -> None:
        """Count a Redis failure and fail open: this request, and for a short back-off
        every request, skips Redis instead of waiting for it."""
        self.metrics.store_errors.labels(operation).inc()
        call.store_ok = False
        now = time.monotonic()
        if now >= self._store_down_until:
            log.warning(
                "redis unavailable during %s: failing open for %.1f s",
                operation,
                self.policy.store_retry_s,
            )
        self._store_down_until = now + self.policy.store_retry_s

    async def _bypass(self, call: _Call, reason: str) -> ChatReply:
        """Forward the client's own request (tenant-salted) and store nothing."""
        self.metrics.bypass_reasons.labels("all", reason).inc()
        self.metrics.responses.labels("BYPASS", "none").inc()
        payload = apply_tenant_salt(call.body, call.tenant, salt_key=self.policy.cache_salt_key)
        status = CacheStatus(CacheState.BYPASS, reason=reason)
        headers = {"x-cache": status.header()}
        if call.request.stream:
            stream = await self._open_stream(payload)
            return ChatReply(status, headers, events=self._relay(stream))
        answer = await self._complete(payload)
        self._book_call(call, answer.response.get("usage"))
        headers["server-timing"] = self._timing(call, answer.duration_s)
        return ChatReply(status, headers, body=answer.body)

    async def _relay(self, stream: UpstreamStream) -> AsyncIterator[bytes]:
        try:
            async for data in stream.events():
                yield b"data: " + data.encode() + b"\n\n"
        except UpstreamError as exc:
            yield _stream_error(exc)
        finally:
            await stream.aclose()
            self.metrics.upstream_latency.labels("stream").observe(stream.duration_s)
            if self.costs is not None:
                self.costs.unpriced.inc()  # a relayed stream's usage is not parsed

    # -- misses ---------------------------------------------------------------------

    async def _miss(
        self,
        call: _Call,
        question: Question,
        fingerprint: Fingerprint,
        keys: _Keys,
        stale: Layer | None,
    ) -> ChatReply:
        status = (
            CacheStatus(CacheState.STALE, stale)
            if stale is not None
            else CacheStatus(CacheState.MISS)
        )
        layer, flight_key = keys.flight
        existing = self._flights.get(flight_key)
        if existing is not None and existing.deadline > time.monotonic():
            body = await self._wait_local(existing)
            if body is not None:
                return self._coalesced(call, keys, layer, body)
            return await self._own_call(call, question, fingerprint, keys, status, None)

        flight = _Flight(
            flight_key,
            layer,
            asyncio.get_running_loop().create_future(),
            time.monotonic() + self.policy.lease_wait_s,
        )
        self._flights[flight_key] = flight
        try:
            lease_ok = True
            try:
                flight.token = await self.leases.acquire(flight_key)
            except StoreUnavailable:
                self._store_failed(call, "lease")
                lease_ok = False
            if lease_ok and flight.token is None:
                body = await self._wait_remote(keys.product, layer, flight_key)
                if body is not None:
                    flight.body = body
                    await self._finish(flight)
                    return self._coalesced(call, keys, layer, body)
            reply = await self._own_call(call, question, fingerprint, keys, status, flight)
        except BaseException:
            await self._finish(flight)
            raise
        if not flight.handed_to_stream:
            await self._finish(flight)
        return reply

    async def _finish(self, flight: _Flight) -> None:
        if flight.finished:
            return
        flight.finished = True
        if not flight.future.done():
            flight.future.set_result(flight.body)
        if self._flights.get(flight.key) is flight:
            del self._flights[flight.key]
        if flight.token is not None:
            try:
                await self.leases.release(flight.key, flight.token)
            except StoreUnavailable:
                self.metrics.store_errors.labels("lease_release").inc()

    async def _wait_local(self, flight: _Flight) -> bytes | None:
        remaining = max(0.0, flight.deadline - time.monotonic())
        try:
            body = await asyncio.wait_for(asyncio.shield(flight.future), remaining)
        except TimeoutError:
            self.metrics.single_flight_waits.labels("timeout").inc()
            return None
        self.metrics.single_flight_waits.labels("filled" if body else "not_filled").inc()
        return body

    async def _wait_remote(self, product: str, layer: Layer, digest: str) -> bytes | None:
        """Another replica holds the lease: poll for its fill until it lets go."""
        deadline = time.monotonic() + self.policy.lease_wait_s
        try:
            while time.monotonic() < deadline:
                await asyncio.sleep(self.policy.lease_poll_s)
                lookup = await self.store.lookup(product, layer, digest)
                if lookup.status is LookupStatus.HIT and lookup.body is not None:
                    self.metrics.single_flight_waits.labels("filled").inc()
                    return lookup.body
                if not await self.leases.held(digest):
                    self.metrics.single_flight_waits.labels("not_filled").inc()
                    return None
        except StoreUnavailable:
            self.metrics.store_errors.labels("lease_wait").inc()
            return None
        self.metrics.single_flight_waits.labels("timeout").inc()
        return None

    def _coalesced(self, call: _Call, keys: _Keys, layer: Layer, body: bytes) -> ChatReply:
        answer = decode_answer(body)
        if layer is Layer.SEMANTIC:
            self._promote(call, keys, answer)
        digest = keys.semantic if layer is Layer.SEMANTIC else keys.request
        assert digest is not None
        return self._hit(call, answer, layer, digest)

    async def _admit(self, call: _Call, key: str) -> None:
        """The fill breaker, then the token bucket; both fail open without Redis."""
        if not call.store_ok:
            return
        try:
            breaker = await self.breaker.record_miss(key)
        except StoreUnavailable:
            self._store_failed(call, "breaker")
            return
        else:
            if not breaker.allowed:
                self.metrics.breaker_trips.inc()
                raise BreakerOpen(breaker.retry_after_s, self.policy.fallback_message)
        try:
            bucket = await self.bucket.take(key)
        except StoreUnavailable:
            self._store_failed(call, "token_bucket")
        else:
            if not bucket.allowed:
                self.metrics.bucket_rejections.inc()
                raise RateLimited(bucket.retry_after_s)

    async def _own_call(
        self,
        call: _Call,
        question: Question,
        fingerprint: Fingerprint,
        keys: _Keys,
        status: CacheStatus,
        flight: _Flight | None,
    ) -> ChatReply:
        await self._admit(call, keys.flight[1])
        snapshot: Snapshot | None = None
        if call.store_ok:
            try:
                # Generations first, facts second: a change that lands in between makes
                # the snapshot older than the facts, and the fill is refused.
                snapshot = await self.store.snapshot(keys.product, [t.field for t in keys.tags])
            except StoreUnavailable:
                self._store_failed(call, "snapshot")
        try:
            facts = await self.facts.read(
                keys.product, with_store=fingerprint.intent == "query_policy"
            )
        except DatabaseUnavailable:
            log.warning("spec store unavailable: answering without the cache")
            return await self._bypass(call, "facts_unavailable")
        if facts is None:
            return await self._bypass(call, "no_facts")
        prompt = build_prompt(
            PromptInputs(
                system_prompt=self._system_prompt(question.system_prompt),
                template=self.policy.sop.for_attribute(fingerprint.attribute)
                or self.policy.sop.generic,
                question=question.text,
                facts=facts,
                attributes=(fingerprint.attribute,),
                conversation=tuple(
                    ConversationTurn("user" if role == "user" else "assistant", text)
                    for role, text in question.conversation
                ),
            )
        )
        payload: dict[str, Any] = {
            **call.request.params,
            "model": call.request.model,
            "messages": prompt.openai_messages(),
        }
        payload = apply_tenant_salt(payload, call.tenant, salt_key=self.policy.cache_salt_key)
        ttl = call.controls.ttl_s
        plan = _FillPlan(
            keys=keys,
            snapshot=snapshot,
            fingerprint=fingerprint,
            facts=facts,
            request_ttl_ms=(ttl or self.policy.request_ttl_s) * 1000,
            semantic_ttl_ms=(ttl or self.policy.semantic_ttl_s) * 1000,
            no_store=call.controls.no_store,
        )
        headers = {
            "x-cache": status.header(),
            "x-cache-key": keys.header(),
            "surrogate-key": " ".join(sorted(str(t) for t in keys.tags)),
        }
        if call.request.stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}
            stream = await self._open_stream(payload)
            self.metrics.responses.labels(status.state.value, "none").inc()
            if flight is not None:
                flight.handed_to_stream = True
            return ChatReply(
                status, headers, events=self._stream_and_fill(call, stream, plan, flight)
            )
        answer = await self._complete(payload)
        self._book_call(call, answer.response.get("usage"))
        stored = await self._fill(plan, answer.response, answer.body, ())
        if flight is not None:
            flight.body = stored.get(flight.layer)
        self.metrics.responses.labels(status.state.value, "none").inc()
        headers.update(
            {
                "age": "0",
                "etag": etag_of(answer.body),
                "server-timing": self._timing(call, answer.duration_s),
            }
        )
        return ChatReply(status, headers, body=answer.body)

    async def _stream_and_fill(
        self, call: _Call, stream: UpstreamStream, plan: _FillPlan, flight: _Flight | None
    ) -> AsyncIterator[bytes]:
        assembly = StreamAssembly()
        relayable = True
        try:
            async for data in stream.events():
                if data == "[DONE]":
                    # Fill before the client sees [DONE]: its next request then hits.
                    if relayable:
                        await self._fill_streamed(assembly, plan, flight)
                    yield SSE_DONE
                    return
                try:
                    chunk = orjson.loads(data)
                except orjson.JSONDecodeError:
                    relayable = False
                    yield b"data: " + data.encode() + b"\n\n"
                    continue
                assembly.add(chunk)
                if not call.request.include_usage and not chunk.get("choices") and "usage" in chunk:
                    continue  # asked for the cache's sake, not the client's
                yield b"data: " + data.encode() + b"\n\n"
        except UpstreamError as exc:
            yield _stream_error(exc)
        finally:
            await stream.aclose()
            self._book_call(call, assembly.usage)
            self.metrics.upstream_latency.labels("stream").observe(stream.duration_s)
            if flight is not None:
                await self._finish(flight)

    async def _fill_streamed(
        self, assembly: StreamAssembly, plan: _FillPlan, flight: _Flight | None
    ) -> None:
        try:
            response = assembly.completion()
        except NotCacheable as exc:
            self.metrics.fill_skipped.labels(exc.reason).inc()
            return
        stored = await self._fill(plan, response, orjson.dumps(response), assembly.chunks)
        if flight is not None:
            flight.body = stored.get(flight.layer)

    async def _fill(
        self,
        plan: _FillPlan,
        response: Mapping[str, Any],
        response_bytes: bytes,
        chunks: tuple[str, ...],
    ) -> dict[Layer, bytes]:
        """Guarded fills of every enabled layer with one snapshot; returns what was stored."""
        if plan.no_store:
            self.metrics.fill_skipped.labels("no_store").inc()
            return {}
        if plan.snapshot is None:
            self.metrics.fill_skipped.labels("store_unavailable").inc()
            return {}
        try:
            check_cacheable(response)
        except NotCacheable as exc:
            self.metrics.fill_skipped.labels(exc.reason).inc()
            return {}
        if any(self.redactor.redact(text).found for text in answer_texts(response)):
            self.metrics.fill_skipped.labels("personal_data_in_answer").inc()
            return {}
        keys = plan.keys
        meta = AnswerMeta(
            layer="",
            created_at=self.clock(),
            product=keys.product,
            cid=plan.fingerprint.cid,
            tags=tuple(sorted(str(t) for t in keys.tags)),
            generations=plan.snapshot.generations,
            spec_versions={f.product_id: f.spec_version for f in plan.facts},
            etag=etag_of(response_bytes),
            chunks=chunks,
            prompt_tokens=_usage_count(response, "prompt_tokens"),
            completion_tokens=_usage_count(response, "completion_tokens"),
        )
        targets = [
            (Layer.SEMANTIC, keys.semantic, plan.semantic_ttl_ms),
            (Layer.REQUEST, keys.request, plan.request_ttl_ms),
        ]
        stored: dict[Layer, bytes] = {}
        for layer, digest, ttl_ms in targets:
            if digest is None:
                continue
            body = encode_answer(replace(meta, layer=layer.value), response_bytes)
            try:
                if not await self.store.fill(layer, digest, plan.snapshot, body, ttl_ms):
                    self.metrics.fill_refused.labels(LAYER_NAMES[layer]).inc()
                    log.info(
                        "fill refused: %s entry of %s changed meanwhile", layer.value, keys.product
                    )
                    continue
                if layer is Layer.REQUEST:
                    await self.pointers.point(digest, keys.product, ttl_ms)
            except StoreUnavailable:
                self.metrics.store_errors.labels("fill").inc()
                continue
            self.metrics.fills.labels(LAYER_NAMES[layer]).inc()
            stored[layer] = body
        return stored

    # -- upstream -------------------------------------------------------------------

    def _book_call(self, call: _Call, usage: Any) -> None:
        if self.costs is not None:
            lookups = {layer: call.looked_up.count(layer) for layer in set(call.looked_up)}
            self.costs.upstream_call(call.request.model, usage, lookups)

    def _upstream_headers(self) -> dict[str, str]:
        if self.switches.state.prefix_routing:
            return {}
        return {PREFIX_ROUTING_HEADER: "off"}

    async def _complete(self, payload: Mapping[str, Any]) -> UpstreamAnswer:
        try:
            answer = await self.upstream.complete(payload, self._upstream_headers())
        except UpstreamError as exc:
            self.metrics.upstream_errors.labels(type(exc).__name__).inc()
            raise
        self.metrics.upstream_latency.labels("ok").observe(answer.duration_s)
        return answer

    async def _open_stream(self, payload: Mapping[str, Any]) -> UpstreamStream:
        try:
            return await self.upstream.open_stream(payload, self._upstream_headers())
        except UpstreamError as exc:
            self.metrics.upstream_errors.labels(type(exc).__name__).inc()
            raise

    def _system_prompt(self, client_prompt: str | None) -> str:
        if not client_prompt:
            return self.policy.sop.system_prompt
        return f"{self.policy.sop.system_prompt}\n\n## Operator instructions\n{client_prompt}"

    def _timing(self, call: _Call, upstream_s: float) -> str:
        total = time.perf_counter() - call.started
        return f"upstream;dur={upstream_s * 1000:.3f}, gateway;dur={total * 1000:.3f}"

    async def aclose(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)


def _usage_count(response: Mapping[str, Any], name: str) -> int:
    usage = response.get("usage")
    value = usage.get(name) if isinstance(usage, Mapping) else None
    return int(value) if isinstance(value, int) else 0


def _stream_error(exc: UpstreamError) -> bytes:
    return sse_event({"error": {"message": str(exc), "type": "upstream_error", "code": 502}})


# -- admin -----------------------------------------------------------------------------


@dataclass
class AdminService:
    switches: KillSwitches
    bumper: GenerationBumper
    entries: EntryReader
    pointers: RequestPointerStore
    clock: Callable[[], float] = time.time

    async def kill_switches(self) -> dict[str, bool]:
        return (await self.switches.refresh()).as_dict()

    async def set_kill_switch(self, layer: str, enabled: bool) -> dict[str, bool]:
        return (await self.switches.set(layer, enabled)).as_dict()

    async def purge(self, tag: str, *, purge_id: str) -> PurgeResult:
        """Invalidate every answer carrying ``tag`` (``product/field``) by bumping it."""
        product, sep, tag_field = tag.partition("/")
        if not sep:
            raise InvalidRequest("tag", "must be '<product>/<field>' as in Surrogate-Key")
        try:
            parsed = parse_field(product, tag_field)
        except ValueError as exc:
            raise InvalidRequest("tag", str(exc)) from exc
        result = await self.bumper.bump(
            ProductBump(parsed.product, (parsed.field,)),
            event_id=f"admin-purge:{purge_id}",
            spec_version=-1,
        )
        generations = dict(result.generations)
        return PurgeResult(str(parsed), generations.get(parsed.field))

    async def entry(self, cache_key: str) -> dict[str, Any] | None:
        """Metadata of the entry named by an ``X-Cache-Key`` value (never its text)."""
        layer_name, _, rest = cache_key.partition(":")
        product, _, digest = rest.rpartition(":")
        try:
            layer = Layer(layer_name)
        except ValueError as exc:
            raise UnknownCacheKey(cache_key) from exc
        if not digest or len(digest) != 64:
            raise UnknownCacheKey(cache_key)
        if not product and layer is Layer.REQUEST:
            product = await self.pointers.product_of(digest) or ""
        if not product:
            return None
        try:
            record = await self.entries.read(product, layer, digest)
        except ValueError as exc:
            raise UnknownCacheKey(cache_key) from exc
        if record is None:
            return None
        meta = decode_answer(record.body).meta
        return {
            "key": f"{layer.value}:{product}:{digest}",
            "layer": layer.value,
            "product": product,
            "valid": record.valid,
            "ttl_ms": record.ttl_ms,
            "created_at": meta.created_at,
            "age_s": age_seconds(meta.created_at, self.clock()),
            "cid": meta.cid,
            "tags": list(meta.tags),
            "spec_versions": dict(meta.spec_versions),
            "etag": meta.etag,
            "streamed": bool(meta.chunks),
            "generations": {
                "stored": record.stored_generations,
                "current": record.current_generations,
            },
        }
