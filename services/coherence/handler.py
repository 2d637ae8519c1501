"""The coherence service layer: one consumed record in, one audit record out.

Pure decisions (parse, plan) come from ``services.core``; this module applies them
through ports and never lets an error escape: an invalid record is dead-lettered, a
transient failure is retried until it succeeds, and an internal error in planning
falls back to invalidating the whole product (coarser, never staler).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from functools import partial
from typing import Any, Protocol, TypeVar

from services.adapters.redis_tag_store import BumpRequest, LogPosition
from services.adapters.sql.audit import AuditRecord
from services.coherence.metrics import CoherenceMetrics, observe_many
from services.coherence.retry import Backoff, retry_forever
from services.core.catalog import STORE_PRODUCT_ID
from services.core.errors import InvalidEvent, InvalidReason, ReplicaBehind, TransientError
from services.core.events import ProductSpecUpdated, SchemaValidator, digest_of, parse_event
from services.core.mapping import InvalidationPlan, MappingSet, ProductBump, plan_invalidation
from services.core.tags import PRODUCT_ID_PATTERN

log = logging.getLogger(__name__)
T = TypeVar("T")
_PRODUCT_ID = re.compile(PRODUCT_ID_PATTERN)
#: Plans remembered (per product and changed fields) before the memo starts over.
_PLANS_KEPT = 65_536


class Outcome(StrEnum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"
    DEAD_LETTERED = "dead_lettered"


@dataclass(frozen=True, slots=True)
class RawRecord:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None

    @property
    def position(self) -> LogPosition:
        return LogPosition(self.topic, self.partition, self.offset)


class BumpOutcome(Protocol):
    @property
    def applied(self) -> bool: ...


class GenerationStore(Protocol):
    async def bump_many(
        self, bumps: Sequence[BumpRequest], handled: Sequence[LogPosition] = ()
    ) -> Sequence[BumpOutcome]: ...


class DeadLetters(Protocol):
    async def send(self, record: RawRecord, error: InvalidEvent) -> None: ...


class ProductDirectory(Protocol):
    async def knows(self, product_id: str) -> bool: ...
    async def variants(self, product_id: str) -> Mapping[str, Collection[str]]: ...
    async def product_ids(self) -> Collection[str]: ...


@dataclass
class CoherenceHandler:
    validator: SchemaValidator
    mappings: MappingSet
    store: GenerationStore
    dead_letters: DeadLetters
    directory: ProductDirectory
    metrics: CoherenceMetrics
    worker_id: str
    backoff: Backoff = field(default_factory=Backoff)
    strict_products: bool = False
    max_event_bytes: int = 64 * 1024
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    _outcomes: dict[Outcome, Any] = field(init=False, repr=False)
    #: (product, changed fields) → (the variants planned with, bumps, unknown fields)
    _plans: dict[
        tuple[str, tuple[str, ...]],
        tuple[Mapping[str, Collection[str]], tuple[ProductBump, ...], tuple[str, ...]],
    ] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        # Resolve labelled children once; this runs for every event.
        self._outcomes = {o: self.metrics.events.labels(o.value) for o in Outcome}

    async def handle(self, record: RawRecord) -> AuditRecord:
        """Apply one record. Returns only once its effect is acknowledged."""
        return (await self.handle_batch([record]))[0]

    async def handle_batch(
        self, records: Sequence[RawRecord], *, replay: bool = False
    ) -> list[AuditRecord]:
        """Apply records fetched together; returns once every effect is acknowledged.

        Invalid records are dead-lettered; the bumps of all valid ones go to Redis in one
        pipeline (bumps commute, so batching changes no outcome, only round trips), which
        also records the highest handled offset per partition in Redis's replica record.
        ``replay``: re-applying records Redis lost (they were dead-lettered the first
        time already). Raises ``ReplicaBehind`` when Redis lost writes: nothing of the
        batch may be acknowledged until the log is re-applied from Redis's offset.
        """
        audits: list[AuditRecord | None] = []
        pending: list[tuple[int, RawRecord, ProductSpecUpdated, InvalidationPlan]] = []
        for record in records:
            try:
                event = parse_event(
                    record.value, record.key, self.validator, max_bytes=self.max_event_bytes
                )
                if self.strict_products and not await self._retry(
                    "spec store", partial(self.directory.knows, event.product_id)
                ):
                    raise InvalidEvent(
                        InvalidReason.UNKNOWN_PRODUCT,
                        "not in the spec store (strict mode)",
                        "$.data.product_id",
                    )
                plan = await self._plan(event)
            except InvalidEvent as exc:
                audits.append(await self._dead_letter(record, exc, send=not replay))
                continue
            except ReplicaBehind:
                raise
            except Exception as exc:  # noqa: BLE001 - a bug must never stop the stream
                audits.append(await self._internal_error(record, exc, send=not replay))
                continue
            pending.append((len(audits), record, event, plan))
            audits.append(None)
        handled = [r.position for r in records]
        if pending:
            for index, audit in await self._apply_isolated(pending, handled, replay=replay):
                audits[index] = audit
        else:
            await self._retry("redis", lambda: self.store.bump_many([], handled))
        done = [a for a in audits if a is not None]
        self._log_applied(done, replay=replay)
        return done

    def _log_applied(self, audits: Sequence[AuditRecord], *, replay: bool) -> None:
        """One INFO line per applied event: names and numbers, never payload values."""
        if not log.isEnabledFor(logging.INFO):
            return
        for a in audits:
            if a.outcome != Outcome.APPLIED.value:
                continue
            log.info(
                "%s %s[%d]@%d product=%s fields=%s tags=%s lag_ms=%s",
                "re-applied" if replay else "applied",
                a.topic,
                a.partition,
                a.offset,
                a.product_id,
                ",".join(a.changed_fields),
                ",".join(a.tags),
                "-" if a.lag_ms is None else f"{a.lag_ms:.1f}",
            )

    async def _apply_isolated(
        self,
        pending: Sequence[tuple[int, RawRecord, ProductSpecUpdated, InvalidationPlan]],
        handled: Sequence[LogPosition],
        *,
        replay: bool,
    ) -> list[tuple[int, AuditRecord]]:
        """The batch in one round trip; if that fails for a reason other than a transient
        one, event by event, so one poisonous event cannot block the others."""
        try:
            return await self._apply(pending, handled, replay=replay)
        except ReplicaBehind:
            raise
        except Exception:  # isolate the culprit below
            log.exception(
                "a batch of %d bumps failed; applying its events one by one", len(pending)
            )
        out: list[tuple[int, AuditRecord]] = []
        for item in pending:
            try:
                out += await self._apply([item], (), replay=replay)
            except ReplicaBehind:
                raise
            except Exception as exc:  # noqa: BLE001 - a bug must never stop the stream
                out.append((item[0], await self._internal_error(item[1], exc, send=not replay)))
        await self._retry("redis", lambda: self.store.bump_many([], handled))
        return out

    async def _internal_error(
        self, record: RawRecord, exc: Exception, *, send: bool = True
    ) -> AuditRecord:
        """Coarsest safe outcome for a record that hit a bug: invalidate its whole product
        (the Kafka key), and keep the record in the DLQ for an operator."""
        log.error(
            "internal error on %s[%d]@%d (%s); invalidating the product, dead-lettering",
            record.topic,
            record.partition,
            record.offset,
            type(exc).__name__,
            exc_info=exc,
        )
        key = record.key.decode("utf-8", "replace") if record.key else ""
        note = "no product key: nothing invalidated"
        if _looks_like_product(key):
            bump = BumpRequest(
                ProductBump(key, ("p",)),
                f"internal:{record.topic}:{record.partition}:{record.offset}",
                0,
                record.position,
            )
            await self._retry("redis", lambda: self.store.bump_many([bump]))
            self.metrics.fallback_invalidations.inc()
            note = f"product {key} invalidated whole"
        return await self._dead_letter(
            record,
            InvalidEvent(InvalidReason.INTERNAL_ERROR, f"{type(exc).__name__}; {note}"),
            send=send,
        )

    async def _plan(self, event: ProductSpecUpdated) -> InvalidationPlan:
        variants = await self._retry(
            "spec store", partial(self.directory.variants, event.product_id)
        )
        # The fan-out set matters only to a store-wide event (a copy of every id, not
        # made for each product event).
        products: Collection[str] = ()
        if event.product_id == STORE_PRODUCT_ID:
            products = await self._retry("spec store", self.directory.product_ids)
        else:
            # A plan depends only on the product, its changed fields and its variants:
            # the same ones recur, so the bumps are reused while the directory hands out
            # the same variants (the entry holds them, so no other object takes their id).
            key = (event.product_id, event.changed_fields)
            known = self._plans.get(key)
            if known is not None and known[0] is variants:
                return InvalidationPlan(event.event_id, known[1], known[2])
        try:
            plan = plan_invalidation(event, self.mappings, variants=variants, all_products=products)
        except InvalidEvent:
            raise
        except Exception:
            log.exception(
                "planning failed for event %s; invalidating the whole product", event.event_id
            )
            self.metrics.fallback_invalidations.inc()
            return InvalidationPlan(event.event_id, (ProductBump(event.product_id, ("p",)),))
        if event.product_id != STORE_PRODUCT_ID:
            if len(self._plans) >= _PLANS_KEPT:
                self._plans.clear()
            self._plans[(event.product_id, event.changed_fields)] = (
                variants,
                plan.bumps,
                plan.unknown_fields,
            )
        return plan

    async def _apply(
        self,
        pending: Sequence[tuple[int, RawRecord, ProductSpecUpdated, InvalidationPlan]],
        handled: Sequence[LogPosition],
        *,
        replay: bool,
    ) -> list[tuple[int, AuditRecord]]:
        requests = [
            BumpRequest(bump, event.identity.dedupe_key, event.spec_version, record.position)
            for _, record, event, plan in pending
            for bump in plan.bumps
        ]
        started = time.perf_counter()
        results = await self._retry("redis", lambda: self.store.bump_many(requests, handled))
        bump_s = time.perf_counter() - started
        now = self.clock()
        out: list[tuple[int, AuditRecord]] = []
        cursor = 0
        # Counters and the round-trip histogram once per batch (a lock each); the lag
        # histogram takes every event's value.
        counted = {Outcome.APPLIED: 0, Outcome.DUPLICATE: 0}
        tags_bumped = 0
        lag = self.metrics.invalidation_lag.observe
        for index, record, event, plan in pending:
            mine = results[cursor : cursor + len(plan.bumps)]
            cursor += len(plan.bumps)
            applied = any(r.applied for r in mine)
            lag_s = max(0.0, (now - event.time).total_seconds())
            outcome = Outcome.APPLIED if applied else Outcome.DUPLICATE
            counted[outcome] += 1
            if applied and not replay:
                lag(lag_s)
                tags_bumped += plan.tag_count
            out.append(
                (
                    index,
                    AuditRecord(
                        event_id=event.event_id,
                        event_source=event.source,
                        product_id=event.product_id,
                        spec_version=event.spec_version,
                        tenant=event.tenant,
                        changed_fields=list(event.changed_fields),
                        tags=plan.tags(),
                        outcome=outcome.value,
                        reason=("unknown fields: " + ", ".join(plan.unknown_fields))
                        if plan.unknown_fields
                        else None,
                        topic=record.topic,
                        partition=record.partition,
                        offset=record.offset,
                        event_time=event.time,
                        applied_at=now,
                        lag_ms=lag_s * 1000.0 if applied else None,
                        worker=self.worker_id,
                    ),
                )
            )
        if not replay:  # re-applied records are counted by the replica guard
            # every applied event of the batch took the batch's round trip
            observe_many(self.metrics.bump_duration, bump_s, counted[Outcome.APPLIED])
            for outcome, n in counted.items():
                if n:
                    self._outcomes[outcome].inc(n)
            if tags_bumped:
                self.metrics.tags_bumped.inc(tags_bumped)
        self.metrics.last_applied.set(now.timestamp())
        return out

    async def _dead_letter(
        self, record: RawRecord, error: InvalidEvent, *, send: bool = True
    ) -> AuditRecord:
        if send:
            await self._retry("dead-letter topic", lambda: self.dead_letters.send(record, error))
            self.metrics.dead_letters.labels(error.reason.value).inc()
            self._outcomes[Outcome.DEAD_LETTERED].inc()
        log.warning(
            "dead-lettered %s[%d]@%d (key %s): %s at %s",
            record.topic,
            record.partition,
            record.offset,
            digest_of(record.key),
            error.reason.value,
            error.json_path,
        )
        key = record.key.decode("utf-8", "replace") if record.key else None
        return AuditRecord(
            event_id=f"dlq:{record.topic}:{record.partition}:{record.offset}",
            product_id=key if key and _looks_like_product(key) else None,
            spec_version=None,
            tenant=None,
            changed_fields=[],
            tags=[],
            outcome=Outcome.DEAD_LETTERED.value,
            reason=f"{error.reason.value} at {error.json_path}: {error.detail}"[:440]
            + f" (key {digest_of(record.key)})",
            topic=record.topic,
            partition=record.partition,
            offset=record.offset,
            event_time=None,
            applied_at=self.clock(),
            lag_ms=None,
            worker=self.worker_id,
        )

    async def _retry(self, what: str, op: Callable[[], Awaitable[T]]) -> T:
        try:  # the common case, on every event: no retry loop to set up
            return await op()
        except TransientError as exc:
            first = exc

        def count(_exc: TransientError) -> None:
            self.metrics.retries.labels(what).inc()

        return await retry_forever(what, op, self.backoff, count, first_error=first)


def _looks_like_product(key: str) -> bool:
    return _PRODUCT_ID.match(key) is not None
