"""The gateway's request pipeline: pure decisions from ``services.core`` and
``gateway.admission``, I/O through the ports of ``gateway.ports``.

Per chat completion (docs/gateway.md has the full flow):

1. validate, normalise, redact personal data, derive the tenant-salted request key;
   requests with personal data, sampled output (temperature > 0, unless allowed),
   several choices, non-text turns or an overlong question are *bypassed*: forwarded as
   they came, never stored (``admission.admit_request``);
2. request layer: pointer → product, then one Lua lookup (2 Redis round trips);
3. fingerprint (the semantic extractor); bypass intents and questions without a
   fingerprint go straight upstream (an entry without tags could never be invalidated);
4. semantic layer (single questions only): one Lua lookup; a hit is promoted into the
   request layer through the same guarded fill (``fills``);
5. miss: single flight per key (``single_flight``), the fill breaker and the token
   bucket, then: snapshot the tags' generations → read the facts → build the canonical
   prompt → call upstream (streams relayed by ``streaming``) → guarded fills of both
   layers with the same snapshot. A refused fill is counted; the answer still goes to
   its caller.

Any Redis failure fails open: the request is answered from upstream and counted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.adapters.redis_tag_store import Lookup, LookupStatus
from services.core.answers import (
    AnswerFormatError,
    CachedAnswer,
    StreamAssembly,
    decode_answer,
    etag_of,
    replay_stream,
)
from services.core.cache_control import CacheControls
from services.core.catalog import STORE_PRODUCT_ID
from services.core.chat_request import (
    ChatRequest,
    Question,
    decode_json_body,
    parse_chat_request,
    question_of,
    redact_messages,
    text_length,
)
from services.core.csr import CostLayer
from services.core.entries import Snapshot
from services.core.errors import DatabaseUnavailable, StoreUnavailable
from services.core.keys import Layer
from services.core.prompt import apply_tenant_salt, sop_prompt
from services.core.redaction import PiiKind, Redaction
from services.core.request_key import canonical_request, canonical_semantic, salted_digest
from services.core.semantic.fingerprint import Fingerprint, SemanticDecision
from services.core.tags import answer_tags
from services.gateway.admission import (
    BypassReason,
    admit_decision,
    admit_length,
    admit_request,
)
from services.gateway.cost_booking import CostBooking
from services.gateway.costs import CostLedger
from services.gateway.errors import BreakerOpen, RateLimited
from services.gateway.fills import AnswerFiller
from services.gateway.memo import DigestMemo
from services.gateway.metrics import GatewayMetrics
from services.gateway.ports import (
    AnswerStore,
    EventStream,
    Extractor,
    FactsSource,
    FillBreaker,
    KillSwitches,
    LeaseStore,
    PiiFinder,
    RequestPointerStore,
    TokenBucket,
    Upstream,
)
from services.gateway.redis_controls import SwitchState
from services.gateway.single_flight import Flight, SingleFlights
from services.gateway.streaming import relay, relay_and_fill
from services.gateway.upstream import UpstreamAnswer, UpstreamError
from services.gateway.values import (
    LAYER_NAMES,
    AnswerKeys,
    CacheState,
    CacheStatus,
    ChatCall,
    ChatReply,
    FillPlan,
    GatewayPolicy,
)

log = logging.getLogger(__name__)

PREFIX_ROUTING_HEADER = "x-cachecoh-prefix-routing"


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
    _store_down_until: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._redactions: DigestMemo[Redaction] = DigestMemo(self.memo_entries)
        self._decisions: DigestMemo[SemanticDecision] = DigestMemo(self.memo_entries)
        self._flights = SingleFlights(
            self.store,
            self.leases,
            self.metrics,
            wait_s=self.policy.lease_wait_s,
            poll_s=self.policy.lease_poll_s,
        )
        self._filler = AnswerFiller(
            self.store,
            self.pointers,
            self.redactor,
            self.metrics,
            self.clock,
            offload_chars=self.policy.offload_chars,
        )
        self._booking = CostBooking(self.costs)
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
        policy = self.policy
        if len(raw) > policy.offload_body_bytes:
            self.metrics.offloaded.labels("parsing").inc()
            body, request = await asyncio.to_thread(self._parse, raw)
        else:
            body, request = self._parse(raw)
        store_ok = time.monotonic() >= self._store_down_until
        text_chars = text_length(request.messages)
        too_long = admit_length(text_chars, max_keyed_chars=policy.max_keyed_chars)
        if too_long is not None:
            # Neither redacted nor keyed: forwarded as sent, nothing stored.
            unkeyed = ChatCall(tenant, body, request, controls, "", started, store_ok=store_ok)
            return await self._bypass(unkeyed, too_long)
        if text_chars > policy.offload_chars:
            self.metrics.offloaded.labels("redaction").inc()
            digest, findings = await asyncio.to_thread(
                self._request_key, tenant, controls, request, self.redactor.redact
            )
        else:
            digest, findings = self._request_key(tenant, controls, request, self._redact_memo)
        call = ChatCall(tenant, body, request, controls, digest, started, store_ok=store_ok)
        for kind in findings:
            self.metrics.pii_redactions.labels(kind.value).inc()
        question = question_of(request.messages)
        refused = admit_request(
            request,
            question,
            personal_data=bool(findings),
            default_temperature=policy.assumed_default_temperature,
            allow_temperature_cache=policy.allow_temperature_cache,
            max_question_chars=policy.max_question_chars,
        )
        if refused is not None or question is None:
            return await self._bypass(call, refused or BypassReason.UNSUPPORTED_MESSAGES)

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

        decision = await self._decide(question.text)
        refused = admit_decision(decision)
        if refused is not None or not isinstance(decision, Fingerprint):
            return await self._bypass(call, refused or BypassReason.NO_FINGERPRINT)
        keys = self._keys(call, question, decision, switches)
        if keys.request is None and keys.semantic is None:
            return await self._bypass(call, BypassReason.KILL_SWITCH)

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
            reason = BypassReason.STORE_UNAVAILABLE
            self.metrics.bypass_reasons.labels("all", reason.value).inc()
            status = CacheStatus(CacheState.BYPASS, reason=reason.value)
            return await self._own_call(call, question, decision, keys, status, None)
        return await self._miss(call, question, decision, keys, stale)

    # -- lookups --------------------------------------------------------------------

    def _parse(self, raw: bytes) -> tuple[dict[str, Any], ChatRequest]:
        body = decode_json_body(raw, max_depth=self.policy.max_json_depth)
        return body, parse_chat_request(body)

    def _redact_memo(self, text: str) -> Redaction:
        return self._redactions.get(text, self.redactor.redact)

    def _request_key(
        self,
        tenant: str,
        controls: CacheControls,
        request: ChatRequest,
        redact: Callable[[str], Redaction],
    ) -> tuple[str, list[PiiKind]]:
        """The request-layer digest of the redacted request, and what redaction found."""
        findings: list[PiiKind] = []

        def redacted_text(text: str) -> str:
            redaction = redact(text)
            findings.extend(f.kind for f in redaction.findings)
            return redaction.text

        messages = redact_messages(request.messages, redacted_text)
        canonical = canonical_request(request.model, messages, request.params)
        digest = salted_digest(
            self.policy.request_key_secret, tenant, controls.namespace, canonical
        )
        return digest, findings

    async def _decide(self, question: str) -> SemanticDecision:
        if len(question) > self.policy.offload_chars:
            self.metrics.offloaded.labels("fingerprint").inc()
            return await asyncio.to_thread(self.extractor.decide, question)
        return self._decisions.get(question, self.extractor.decide)

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
        self, call: ChatCall, question: Question, fingerprint: Fingerprint, switches: SwitchState
    ) -> AnswerKeys:
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
        return AnswerKeys(
            product, tags, call.request_digest if switches.request else None, semantic
        )

    # -- replies --------------------------------------------------------------------

    def _hit(self, call: ChatCall, answer: CachedAnswer, layer: Layer, digest: str) -> ChatReply:
        responses, lookups = self._hit_counters[layer]
        responses.inc()
        lookups.inc()
        self._booking.hit(
            call.request.model, CostLayer(LAYER_NAMES[layer]), answer.meta, len(call.looked_up)
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

    def _promote(self, call: ChatCall, keys: AnswerKeys, answer: CachedAnswer) -> None:
        """Copy a semantic answer into the request layer (guarded by its own snapshot)."""
        if keys.request is None or call.controls.no_store:
            return
        ttl_ms = (call.controls.ttl_s or self.policy.request_ttl_s) * 1000
        self._filler.promote(answer, keys.request, ttl_ms)

    def _store_failed(self, call: ChatCall, operation: str) -> None:
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

    async def _bypass(self, call: ChatCall, reason: BypassReason) -> ChatReply:
        """Forward the client's own request (tenant-salted) and store nothing."""
        self.metrics.bypass_reasons.labels("all", reason.value).inc()
        self.metrics.responses.labels("BYPASS", "none").inc()
        payload = apply_tenant_salt(call.body, call.tenant, salt_key=self.policy.cache_salt_key)
        status = CacheStatus(CacheState.BYPASS, reason=reason.value)
        headers = {"x-cache": status.header()}
        if call.request.stream:
            stream = await self._open_stream(payload)

            def closed() -> None:
                self.metrics.upstream_latency.labels("stream").observe(stream.duration_s)
                self._booking.unpriced_stream()

            return ChatReply(status, headers, events=relay(stream, closed))
        answer = await self._complete(payload)
        self._booking.upstream_call(
            call.request.model, answer.response.get("usage"), call.looked_up
        )
        headers["server-timing"] = self._timing(call, answer.duration_s)
        return ChatReply(status, headers, body=answer.body)

    # -- misses ---------------------------------------------------------------------

    async def _miss(
        self,
        call: ChatCall,
        question: Question,
        fingerprint: Fingerprint,
        keys: AnswerKeys,
        stale: Layer | None,
    ) -> ChatReply:
        status = (
            CacheStatus(CacheState.STALE, stale)
            if stale is not None
            else CacheStatus(CacheState.MISS)
        )
        layer, flight_key = keys.flight
        existing = self._flights.current(flight_key)
        if existing is not None:
            body = await self._flights.wait_local(existing)
            if body is not None:
                return self._coalesced(call, keys, layer, body)
            return await self._own_call(call, question, fingerprint, keys, status, None)

        flight = self._flights.start(flight_key, layer)
        try:
            lease_ok = True
            try:
                await self._flights.acquire_lease(flight)
            except StoreUnavailable:
                self._store_failed(call, "lease")
                lease_ok = False
            if lease_ok and flight.token is None:
                body = await self._flights.wait_remote(keys.product, layer, flight_key)
                if body is not None:
                    flight.body = body
                    await self._flights.finish(flight)
                    return self._coalesced(call, keys, layer, body)
            reply = await self._own_call(call, question, fingerprint, keys, status, flight)
        except BaseException:
            await self._flights.finish(flight)
            raise
        if not flight.handed_to_stream:
            await self._flights.finish(flight)
        return reply

    def _coalesced(self, call: ChatCall, keys: AnswerKeys, layer: Layer, body: bytes) -> ChatReply:
        answer = decode_answer(body)
        if layer is Layer.SEMANTIC:
            self._promote(call, keys, answer)
        digest = keys.digest(layer)
        assert digest is not None
        return self._hit(call, answer, layer, digest)

    async def _admit(self, call: ChatCall, key: str) -> None:
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
        call: ChatCall,
        question: Question,
        fingerprint: Fingerprint,
        keys: AnswerKeys,
        status: CacheStatus,
        flight: Flight | None,
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
            return await self._bypass(call, BypassReason.FACTS_UNAVAILABLE)
        if facts is None:
            return await self._bypass(call, BypassReason.NO_FACTS)
        prompt = sop_prompt(
            self.policy.sop,
            attribute=fingerprint.attribute,
            question=question.text,
            client_system_prompt=question.system_prompt,
            facts=facts,
            conversation=question.conversation,
        )
        payload: dict[str, Any] = {
            **call.request.params,
            "model": call.request.model,
            "messages": prompt.openai_messages(),
        }
        payload = apply_tenant_salt(payload, call.tenant, salt_key=self.policy.cache_salt_key)
        ttl = call.controls.ttl_s
        plan = FillPlan(
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
            return ChatReply(status, headers, events=self._relay_miss(call, stream, plan, flight))
        answer = await self._complete(payload)
        self._booking.upstream_call(
            call.request.model, answer.response.get("usage"), call.looked_up
        )
        stored = await self._filler.fill(plan, answer.response, answer.body)
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

    def _relay_miss(
        self, call: ChatCall, stream: EventStream, plan: FillPlan, flight: Flight | None
    ) -> AsyncIterator[bytes]:
        async def fill(assembly: StreamAssembly) -> None:
            stored = await self._filler.fill_streamed(assembly, plan)
            if flight is not None:
                flight.body = stored.get(flight.layer)

        async def closed(assembly: StreamAssembly) -> None:
            self._booking.upstream_call(call.request.model, assembly.usage, call.looked_up)
            self.metrics.upstream_latency.labels("stream").observe(stream.duration_s)
            if flight is not None:
                await self._flights.finish(flight)

        return relay_and_fill(
            stream, include_usage=call.request.include_usage, fill=fill, on_close=closed
        )

    # -- upstream -------------------------------------------------------------------

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

    async def _open_stream(self, payload: Mapping[str, Any]) -> EventStream:
        try:
            return await self.upstream.open_stream(payload, self._upstream_headers())
        except UpstreamError as exc:
            self.metrics.upstream_errors.labels(type(exc).__name__).inc()
            raise

    def _timing(self, call: ChatCall, upstream_s: float) -> str:
        total = time.perf_counter() - call.started
        return f"upstream;dur={upstream_s * 1000:.3f}, gateway;dur={total * 1000:.3f}"

    async def aclose(self) -> None:
        await self._filler.aclose()
