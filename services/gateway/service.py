"""The gateway's request pipeline: pure decisions from ``services.core`` and
``gateway.admission``, I/O through the ports of ``gateway.ports``.

Per chat completion (docs/gateway.md has the full flow):

1. validate, normalise, redact personal data into typed placeholders, pick the answer
   language, derive the tenant-salted request key; several choices, non-text turns or
   an overlong question are *bypassed*: forwarded as they came, never stored
   (``admission.admit_request``);
2. request layer: one Lua lookup that follows the request pointer to its entry (one
   Redis round trip; two on Redis Cluster, where pointer and entry are in other slots);
3. fingerprint (the semantic extractor, on the redacted text): a bypass intent is sent
   upstream grounded with the facts of the products it names, never stored; a general
   request (no fingerprint, no product) goes through the request layer when
   deterministic, tagged with the tenant's general tags;
4. semantic layer (single questions only): one Lua lookup; a hit is promoted into the
   request layer through the same guarded fill (``fills``);
5. miss: single flight per key (``single_flight``), the fill breaker and the token
   bucket (or, for ``no-cache`` / ``X-Cache-TTL``, the client's own bucket), then:
   snapshot the tags' generations → read the facts → build the canonical prompt (the
   canonical question rendered from the fingerprint in the answer language, with the
   gateway's sampling) → call upstream (streams relayed by ``streaming``) → guarded
   fills of both layers with the same snapshot. A refused fill is counted; the answer
   still goes to its caller.

What reaches the model on a cached path is a function of the key (DESIGN.md, the
key-completeness rule): the asker's own wording never reaches it for a semantic entry,
and a request entry is generated from the redacted request.

Any Redis failure fails open: the request is answered from upstream and counted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from services.adapters.gateway_redis import SwitchState
from services.adapters.redis_tag_store import Lookup, LookupStatus
from services.adapters.upstream_http import UpstreamAnswer, UpstreamError
from services.core.answer_language import answer_language
from services.core.answers import (
    AnswerFormatError,
    CachedAnswer,
    StreamAssembly,
)
from services.core.cache_control import CacheControls
from services.core.canonical_question import semantic_key_material
from services.core.catalog import STORE_PRODUCT_ID, ProductFacts
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
from services.core.prompt import (
    ConversationTurn,
    PromptInputs,
    apply_tenant_salt,
    build_prompt,
    keyed_system_prompt,
)
from services.core.redacted_text import for_extractor
from services.core.redaction import PiiKind, Redaction
from services.core.request_key import canonical_request, salted_digest
from services.core.response_identity import (
    CompletionIds,
    conform_completion,
    identified,
    stable_etag,
)
from services.core.semantic.fingerprint import Bypass, Fingerprint, SemanticDecision
from services.core.tags import answer_tags, general_product, general_tags
from services.gateway.admission import (
    BypassReason,
    admit_length,
    admit_request,
    deterministic,
)
from services.gateway.cost_booking import CostBooking
from services.gateway.costs import CostLedger
from services.gateway.errors import BreakerOpen, RateLimited
from services.gateway.fills import AnswerFiller
from services.gateway.hit_replies import prepare_hit
from services.gateway.memo import DigestMemo, HitMemo, KnownRequest, KnownRequests, PreparedHit
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
from services.gateway.single_flight import Flight, SingleFlights
from services.gateway.streaming import relay, relay_and_fill
from services.gateway.upstream_payloads import general_payload, grounded_payload
from services.gateway.values import (
    LAYER_NAMES,
    ORIGIN_HEADER,
    AnswerKeys,
    AnswerPolicy,
    CacheState,
    CacheStatus,
    ChatCall,
    ChatReply,
    FillPlan,
    GatewayPolicy,
)

log = logging.getLogger(__name__)

PREFIX_ROUTING_HEADER = "x-cachecoh-prefix-routing"
#: Whose sampling generated a grounded answer (``gateway; temperature=0``).
SAMPLING_HEADER = "x-cache-sampling"
#: Products whose facts grounded a bypassed answer.
GROUNDED_HEADER = "x-cache-grounded"
_KEY_SEP = b"\x1f"


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
    #: Per-API-key bucket of requests that override the cache (no-cache, X-Cache-TTL).
    client_bucket: TokenBucket
    metrics: GatewayMetrics
    costs: CostLedger | None = None
    memo_entries: int = 8192
    clock: Callable[[], float] = time.time
    _store_down_until: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._redactions: DigestMemo[Redaction] = DigestMemo(self.memo_entries)
        self._decisions: DigestMemo[SemanticDecision] = DigestMemo(self.memo_entries)
        self._prepared = HitMemo(self.memo_entries)
        self._known = KnownRequests(self.memo_entries)
        self._ids = CompletionIds()
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

    async def chat(
        self, tenant: str, raw: bytes, controls: CacheControls, *, client: str = ""
    ) -> ChatReply:
        started = time.perf_counter()
        policy = self.policy
        early = await self._known_path(tenant, raw, controls)
        if early.reply is not None:
            return early.reply
        known_as, prior = early.fingerprint, early.request
        if len(raw) > policy.offload_body_bytes:
            self.metrics.offloaded.labels("parsing").inc()
            body, request = await asyncio.to_thread(self._parse, raw)
        else:
            body, request = self._parse(raw)
        store_ok = time.monotonic() >= self._store_down_until
        answers = policy.answers_for(tenant)
        text_chars = text_length(request.messages)
        too_long = admit_length(text_chars, max_keyed_chars=policy.max_keyed_chars)
        if too_long is not None:
            # Neither redacted nor keyed (bounded work): forwarded as sent, nothing stored.
            unkeyed = ChatCall(
                tenant,
                body,
                request,
                controls,
                "",
                started,
                redacted=request.messages,
                answers=answers,
                language=answer_language("", controls.language),
                client=client,
                store_ok=store_ok,
            )
            return await self._bypass(unkeyed, too_long)
        if text_chars > policy.offload_chars:
            self.metrics.offloaded.labels("redaction").inc()
            redacted, findings = await asyncio.to_thread(
                self._redact, request, self.redactor.redact
            )
        else:
            redacted, findings = self._redact(request, self._redact_memo)
        question = question_of(redacted)
        language = answer_language(question.text if question else "", controls.language)
        canonical = canonical_request(request.model, redacted, request.params)
        # The answer language decides the canonical question: it is part of the key.
        digest = salted_digest(
            policy.request_key_secret,
            tenant,
            controls.namespace,
            canonical + _KEY_SEP + language.encode(),
        )
        call = ChatCall(
            tenant,
            body,
            request,
            controls,
            digest,
            started,
            redacted=redacted,
            answers=answers,
            language=language,
            client=client,
            store_ok=store_ok,
        )
        for kind in findings:
            self.metrics.pii_redactions.labels(kind.value).inc()
        refused = admit_request(
            request, question, max_question_chars=self.policy.max_question_chars
        )
        if refused is not None or question is None:
            return await self._bypass(call, refused or BypassReason.UNSUPPORTED_MESSAGES)
        kinds = tuple(kind.value for kind in findings)
        known_request = KnownRequest(
            digest, request.model, request.stream, request.include_usage, kinds
        )
        if known_as is not None:
            self._known.put(known_as, known_request)

        switches = self.switches.state
        stale: Layer | None = None
        if not switches.request:
            self.metrics.bypass_reasons.labels("request", "kill_switch").inc()
        elif not controls.no_cache and call.store_ok:
            call.looked_up.append(CostLayer.REQUEST)
            found: PreparedHit | LookupStatus
            if prior is not None:  # looked up (and counted) above
                found = prior
            else:
                try:
                    found = await self._lookup_request(digest)
                except StoreUnavailable:
                    self._store_failed(call, "request_lookup")
                    found = LookupStatus.MISS
            if isinstance(found, PreparedHit):
                if controls.accepts_age(found.answer.age(self.clock())):
                    return self._hit(call, found, Layer.REQUEST)
            elif found is LookupStatus.STALE:
                stale = Layer.REQUEST

        decision = await self._decide(question.text)
        if isinstance(decision, Bypass):
            return await self._grounded_bypass(call, BypassReason(decision.intent))
        if not isinstance(decision, Fingerprint):
            return await self._general(call, question, switches, stale)
        keys = self._keys(call, question, decision, switches)
        if keys.request is None and keys.semantic is None:
            return await self._grounded_bypass(call, BypassReason.KILL_SWITCH)

        if known_as is not None and keys.semantic is not None:
            self._known.put(
                known_as, replace(known_request, semantic=(keys.product, keys.semantic))
            )
        if keys.semantic is not None and not controls.no_cache and call.store_ok:
            call.looked_up.append(CostLayer.SEMANTIC)
            if early.semantic is not None:  # looked up (and counted) above
                hit, status = early.semantic
            else:
                try:
                    lookup = await self.store.lookup(keys.product, Layer.SEMANTIC, keys.semantic)
                except StoreUnavailable:
                    self._store_failed(call, "semantic_lookup")
                    lookup = Lookup(LookupStatus.MISS)
                hit, status = self._found(Layer.SEMANTIC, keys.semantic, lookup), lookup.status
            if hit is not None and controls.accepts_age(hit.answer.age(self.clock())):
                self._promote(call, keys, hit.answer)
                return self._hit(call, hit, Layer.SEMANTIC)
            if status is LookupStatus.STALE and stale is None:
                stale = Layer.SEMANTIC
        if not call.store_ok:
            return await self._fail_open(call, question, decision, keys)
        return await self._miss(call, question, decision, keys, stale)

    async def _general(
        self, call: ChatCall, question: Question, switches: SwitchState, stale: Layer | None
    ) -> ChatReply:
        """A request without a fingerprint: grounded and bypassed when it names products;
        else answered through the request layer when its output is deterministic."""
        if _named_products(self.policy, question):
            # a product question (or a follow-up about one) the extractor cannot key
            return await self._grounded_bypass(call, BypassReason.NO_FINGERPRINT)
        if not deterministic(
            call.request,
            default_temperature=self.policy.assumed_default_temperature,
            cache_sampled=call.answers.cache_sampled,
        ):
            self.metrics.general_answers.labels("sampled").inc()
            return await self._bypass(call, BypassReason.TEMPERATURE)
        if not switches.request:
            return await self._bypass(call, BypassReason.KILL_SWITCH)
        tags = general_tags(call.tenant, call.controls.namespace, call.controls.tags)
        keys = AnswerKeys(general_product(call.tenant), tags, call.request_digest, None)
        self.metrics.general_answers.labels("miss").inc()
        if not call.store_ok:
            return await self._fail_open(call, question, None, keys)
        return await self._miss(call, question, None, keys, stale)

    async def _fail_open(
        self,
        call: ChatCall,
        question: Question,
        fingerprint: Fingerprint | None,
        keys: AnswerKeys,
    ) -> ChatReply:
        # A grounded answer from upstream, nothing read from or written to Redis (no
        # lease, breaker, bucket or fill either).
        reason = BypassReason.STORE_UNAVAILABLE
        self.metrics.bypass_reasons.labels("all", reason.value).inc()
        status = CacheStatus(CacheState.BYPASS, reason=reason.value)
        return await self._own_call(call, question, fingerprint, keys, status, None)

    # -- lookups --------------------------------------------------------------------

    def _parse(self, raw: bytes) -> tuple[dict[str, Any], ChatRequest]:
        body = decode_json_body(raw, max_depth=self.policy.max_json_depth)
        return body, parse_chat_request(body)

    def _redact_memo(self, text: str) -> Redaction:
        return self._redactions.get(text, self.redactor.redact)

    def _redact(
        self, request: ChatRequest, redact: Callable[[str], Redaction]
    ) -> tuple[tuple[Mapping[str, Any], ...], list[PiiKind]]:
        """The messages with personal data replaced by placeholders, and what was found."""
        findings: list[PiiKind] = []

        def redacted_text(text: str) -> str:
            redaction = redact(text)
            findings.extend(f.kind for f in redaction.findings)
            return redaction.text

        return redact_messages(request.messages, redacted_text), findings

    async def _decide(self, question: str) -> SemanticDecision:
        # The extractor reads the redacted text with its placeholders made neutral.
        if len(question) > self.policy.offload_chars:
            self.metrics.offloaded.labels("fingerprint").inc()
            return await asyncio.to_thread(self._extract, question)
        return self._decisions.get(question, self._extract)

    def _extract(self, text: str) -> SemanticDecision:
        return self.extractor.decide(for_extractor(text))

    def _found(self, layer: Layer, digest: str, lookup: Lookup) -> PreparedHit | None:
        if lookup.status is LookupStatus.STALE:
            self.metrics.stale_lookups.labels(LAYER_NAMES[layer]).inc()
            self.metrics.lookups.labels(LAYER_NAMES[layer], "stale").inc()
            return None
        if lookup.status is LookupStatus.MISS or lookup.body is None:
            self._miss_lookups[layer].inc()
            return None
        try:
            return self._prepare(layer, digest, lookup.body)
        except AnswerFormatError:
            self._miss_lookups[layer].inc()
            return None

    def _prepare(self, layer: Layer, digest: str, entry: bytes) -> PreparedHit:
        """A stored answer ready to serve, formatted once per entry and reused while Redis
        returns the same bytes. Formatting only: the lookup decided it may be served."""
        return self._prepared.get(
            f"{layer.value}:{digest}", entry, lambda body: prepare_hit(layer, digest, body)
        )

    async def _known_path(self, tenant: str, raw: bytes, controls: CacheControls) -> EarlyLookups:
        """Request bodies already keyed in this key space skip parsing, validation,
        redaction and keying: their digests go straight to the lookups (Redis still
        decides whether anything is served). Only a hit replies here; otherwise the full
        path continues with what was looked up (and counted) here."""
        switches = self.switches.state
        if (
            controls.no_cache
            or not (switches.request or switches.semantic)
            or len(raw) > self.policy.offload_body_bytes
            or time.monotonic() < self._store_down_until
        ):
            return EarlyLookups(None)
        fingerprint = self._known.fingerprint(tenant, controls.namespace, controls.language, raw)
        known = self._known.get(fingerprint)
        if known is None:
            return EarlyLookups(fingerprint)
        for kind in known.findings:
            self.metrics.pii_redactions.labels(kind).inc()
        answers = self.policy.answers_for(tenant)
        request: PreparedHit | LookupStatus | None = None
        lookups = 0
        if switches.request:
            lookups += 1
            try:
                request = await self._lookup_request(known.digest)
            except StoreUnavailable:
                self._store_down("request_lookup")
                return EarlyLookups(fingerprint)
            if isinstance(request, PreparedHit) and controls.accepts_age(
                request.answer.age(self.clock())
            ):
                reply = self._hit_reply(
                    request, Layer.REQUEST, known=known, answers=answers, lookups=lookups
                )
                return EarlyLookups(fingerprint, reply)
        if known.semantic is None or not switches.semantic:
            return EarlyLookups(fingerprint, request=request)
        product, semantic = known.semantic
        try:
            lookup = await self.store.lookup(product, Layer.SEMANTIC, semantic)
        except StoreUnavailable:
            self._store_down("semantic_lookup")
            return EarlyLookups(fingerprint, request=request)
        hit = self._found(Layer.SEMANTIC, semantic, lookup)
        if hit is not None and controls.accepts_age(hit.answer.age(self.clock())):
            if switches.request and not controls.no_store:
                ttl_ms = (controls.ttl_s or self.policy.request_ttl_s) * 1000
                self._filler.promote(hit.answer, known.digest, ttl_ms)
            reply = self._hit_reply(
                hit, Layer.SEMANTIC, known=known, answers=answers, lookups=lookups + 1
            )
            return EarlyLookups(fingerprint, reply)
        return EarlyLookups(fingerprint, request=request, semantic=(hit, lookup.status))

    async def _lookup_request(self, digest: str) -> PreparedHit | LookupStatus:
        # pointer → entry: one round trip on a single-node Redis, two on a cluster
        lookup = await self.store.lookup_request(digest)
        hit = self._found(Layer.REQUEST, digest, lookup)
        return hit if hit is not None else lookup.status

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
                semantic_key_material(
                    model=call.request.model,
                    system_prompt=question.system_prompt,
                    params=call.answers.answer_params(call.request.params),
                    fingerprint=fingerprint,
                    language=call.language,
                ),
            )
        return AnswerKeys(
            product, tags, call.request_digest if switches.request else None, semantic
        )

    # -- replies --------------------------------------------------------------------

    def _hit(self, call: ChatCall, hit: PreparedHit, layer: Layer) -> ChatReply:
        request = call.request
        known = KnownRequest("", request.model, request.stream, request.include_usage, ())
        return self._hit_reply(
            hit, layer, known=known, answers=call.answers, lookups=len(call.looked_up)
        )

    def _hit_reply(
        self,
        hit: PreparedHit,
        layer: Layer,
        *,
        known: KnownRequest,
        answers: AnswerPolicy,
        lookups: int,
    ) -> ChatReply:
        model, stream, include_usage = known.model, known.stream, known.include_usage
        responses, looked_up = self._hit_counters[layer]
        responses.inc()
        looked_up.inc()
        meta = hit.answer.meta
        self._booking.hit(model, CostLayer(LAYER_NAMES[layer]), meta, lookups)
        now = self.clock()
        headers = dict(hit.headers)
        headers["age"] = str(hit.answer.age(now))
        if meta.cid:
            headers[SAMPLING_HEADER] = answers.sampling_header()
        else:
            self.metrics.general_answers.labels("hit").inc()
        # One stored answer, many responses: each gets its own id and created.
        created = int(now)
        status = _HIT_STATUS[layer]
        if stream:
            events = hit.replay.events(self._ids.next(), created, include_usage=include_usage)
            # one write: a replay has nothing to wait for between its events
            return ChatReply(status, headers, events=(b"".join(events),))
        body = identified(hit.answer.response, created, self._ids.next())
        return ChatReply(status, headers, body=body)

    def _promote(self, call: ChatCall, keys: AnswerKeys, answer: CachedAnswer) -> None:
        """Copy a semantic answer into the request layer (guarded by its own snapshot)."""
        if keys.request is None or call.controls.no_store:
            return
        ttl_ms = (call.controls.ttl_s or self.policy.request_ttl_s) * 1000
        self._filler.promote(answer, keys.request, ttl_ms)

    def _store_failed(self, call: ChatCall, operation: str) -> None:
        """Count a Redis failure and fail open: this request, and for a short back-off
        every request, skips Redis instead of waiting for it."""
        call.store_ok = False
        self._store_down(operation)

    def _store_down(self, operation: str) -> None:
        self.metrics.store_errors.labels(operation).inc()
        now = time.monotonic()
        if now >= self._store_down_until:
            log.warning(
                "redis unavailable during %s: failing open for %.1f s",
                operation,
                self.policy.store_retry_s,
            )
        self._store_down_until = now + self.policy.store_retry_s

    async def _bypass(
        self,
        call: ChatCall,
        reason: BypassReason,
        payload: Mapping[str, Any] | None = None,
        grounded: tuple[str, ...] = (),
    ) -> ChatReply:
        """Forward the client's own request (tenant-salted; with ``payload`` its grounded
        form) and store nothing."""
        self.metrics.bypass_reasons.labels("all", reason.value).inc()
        self.metrics.responses.labels("BYPASS", "none").inc()
        salted = apply_tenant_salt(
            payload if payload is not None else call.body,
            call.tenant,
            salt_key=self.policy.cache_salt_key,
        )
        status = CacheStatus(CacheState.BYPASS, reason=reason.value)
        headers = {"x-cache": status.header()}
        if grounded:
            headers[GROUNDED_HEADER] = " ".join(grounded)
        if call.request.stream:
            stream = await self._open_stream(salted)

            def closed() -> None:
                self.metrics.upstream_latency.labels("stream").observe(stream.duration_s)
                self._booking.unpriced_stream()

            return ChatReply(status, headers, events=relay(stream, closed))
        answer = await self._complete(salted)
        self._booking.upstream_call(
            call.request.model, answer.response.get("usage"), call.looked_up
        )
        headers["server-timing"] = self._timing(call, answer.duration_s)
        return ChatReply(status, headers, body=self._conformed(answer.response, answer.body))

    async def _grounded_bypass(self, call: ChatCall, reason: BypassReason) -> ChatReply:
        """A product question the caches may not answer: sent with the facts of the
        products it names (the same prompt builder as a miss), as asked, never stored."""
        question = question_of(call.request.messages)
        products = _named_products(self.policy, question) if question else ()
        if question is None or not products:
            return await self._bypass(call, reason)
        facts: list[ProductFacts] = []
        try:
            for product in products:
                found = await self.facts.read(product, with_store=False) or ()
                facts.extend(f for f in found if f.product_id == product)
        except DatabaseUnavailable:
            log.warning("spec store unavailable: forwarding a product question ungrounded")
            return await self._bypass(call, reason)
        if not facts:
            return await self._bypass(call, reason)
        prompt = build_prompt(
            PromptInputs(
                system_prompt=keyed_system_prompt(
                    self.policy.sop.system_prompt, question.system_prompt
                ),
                template=self.policy.sop.generic,
                question=question.text,
                facts=tuple(facts),
                conversation=_turns(question.conversation),
            )
        )
        self.metrics.grounded_bypasses.labels(reason.value).inc()
        payload = {**call.body, "messages": prompt.openai_messages()}
        grounded = tuple(f.product_id for f in facts)
        return await self._bypass(call, reason, payload, grounded=grounded)

    def _conformed(self, response: Mapping[str, Any], body: bytes) -> bytes:
        """The upstream body, with what the OpenAI schema requires and upstreams omit."""
        fixed = conform_completion(response)
        return body if fixed == response else orjson.dumps(fixed)

    # -- misses ---------------------------------------------------------------------

    async def _miss(
        self,
        call: ChatCall,
        question: Question,
        fingerprint: Fingerprint | None,
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
        digest = keys.digest(layer)
        assert digest is not None
        hit = self._prepare(layer, digest, body)
        if layer is Layer.SEMANTIC:
            self._promote(call, keys, hit.answer)
        return self._hit(call, hit, layer)

    async def _admit(self, call: ChatCall, key: str) -> None:
        """The fill breaker, then the token bucket; both fail open without Redis.

        A request that overrides the cache (``no-cache``, ``X-Cache-TTL``) first takes a
        token of its API key's own bucket, which is far smaller than a question's: one
        client refreshing a hot question is stopped (429, that client only) long before
        the question's bucket or breaker would turn everyone else away.
        """
        if not call.store_ok:
            return
        controls = call.controls
        if controls.overrides_cache:
            try:
                own = await self.client_bucket.take(f"client:{call.client}")
            except StoreUnavailable:
                self._store_failed(call, "client_bucket")
                return
            if not own.allowed:
                control = "no_cache" if controls.no_cache else "ttl"
                self.metrics.client_rate_limited.labels(control).inc()
                raise RateLimited(own.retry_after_s, "overriding the cache with this API key")
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
        fingerprint: Fingerprint | None,
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
        headers = {
            "x-cache": status.header(),
            "x-cache-key": keys.header(),
            "surrogate-key": " ".join(sorted(str(t) for t in keys.tags)),
        }
        facts: tuple[ProductFacts, ...] = ()
        if fingerprint is None:
            payload = general_payload(call)
        else:
            try:
                found = await self.facts.read(
                    keys.product, with_store=fingerprint.intent == "query_policy"
                )
            except DatabaseUnavailable:
                log.warning("spec store unavailable: answering without the cache")
                return await self._grounded_bypass(call, BypassReason.FACTS_UNAVAILABLE)
            if found is None:
                return await self._grounded_bypass(call, BypassReason.NO_FACTS)
            facts = found
            payload = self._grounded_payload(call, question, fingerprint, keys, facts)
            headers[SAMPLING_HEADER] = call.answers.sampling_header()
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
        response = conform_completion(answer.response)
        body = answer.body if response == answer.response else orjson.dumps(response)
        stored = await self._filler.fill(plan, response)
        if flight is not None:
            flight.body = stored.get(flight.layer)
        if fingerprint is None and stored:
            self.metrics.general_answers.labels("stored").inc()
        self.metrics.responses.labels(status.state.value, "none").inc()
        headers.update(
            {
                "age": "0",
                ORIGIN_HEADER: str(response.get("id", "")),
                "etag": stable_etag(response),
                "server-timing": self._timing(call, answer.duration_s),
            }
        )
        return ChatReply(status, headers, body=body)

    def _grounded_payload(
        self,
        call: ChatCall,
        question: Question,
        fingerprint: Fingerprint,
        keys: AnswerKeys,
        facts: tuple[ProductFacts, ...],
    ) -> dict[str, Any]:
        if question.single:
            source = "header" if call.controls.language else "detected"
            self.metrics.answer_languages.labels(call.language, source).inc()
        sent = "client_value" if "temperature" in call.request.params else "client_default"
        self.metrics.sampling_overrides.labels(sent).inc()
        return grounded_payload(self.policy, call, question, fingerprint, keys, facts)

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


_HIT_STATUS = {layer: CacheStatus(CacheState.HIT, layer) for layer in Layer}


@dataclass(frozen=True, slots=True)
class EarlyLookups:
    """What the known-request path found: a reply (a hit), or the lookups it made for
    the full path to reuse (``fingerprint``: the body's memo key, None when skipped)."""

    fingerprint: bytes | None
    reply: ChatReply | None = None
    request: PreparedHit | LookupStatus | None = None
    semantic: tuple[PreparedHit | None, LookupStatus] | None = None


def _named_products(policy: GatewayPolicy, question: Question) -> tuple[str, ...]:
    """Catalog products the question names, or else the earlier turns (a follow-up)."""
    named = policy.products.named_in(question.text)
    if named or not question.conversation:
        return named
    return policy.products.named_in(" ".join(text for _, text in question.conversation))


def _turns(conversation: tuple[tuple[str, str], ...]) -> tuple[ConversationTurn, ...]:
    return tuple(
        ConversationTurn("user" if role == "user" else "assistant", text)
        for role, text in conversation
    )
