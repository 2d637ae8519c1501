"""The checker's service layer: events in, probes through the real lookup path, verdicts out."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Histogram

from services.adapters.redis_tag_store import LookupStatus, RedisTagStore
from services.core.consistency import ConsistencyReport, spec_versions_of
from services.core.events import EventIdentity, ProductSpecUpdated
from services.core.mapping import MappingSet, plan_invalidation

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckerMetrics:
    registry: CollectorRegistry
    checked_reads: Counter
    violations: Counter
    events_checked: Counter
    probe_delay: Histogram

    @classmethod
    def create(cls, registry: CollectorRegistry | None = None) -> CheckerMetrics:
        reg = registry or CollectorRegistry()
        return cls(
            registry=reg,
            checked_reads=Counter(
                "cachecoh_consistency_checked_reads",
                "Answers probed through the lookup path after their event was acknowledged.",
                registry=reg,
            ),
            violations=Counter(
                "cachecoh_consistency_violations",
                "Probes that served an answer built from a spec version older than an "
                "acknowledged event (must stay 0).",
                registry=reg,
            ),
            events_checked=Counter(
                "cachecoh_consistency_events_checked",
                "Events whose answers were probed.",
                registry=reg,
            ),
            probe_delay=Histogram(
                "cachecoh_consistency_probe_delay_seconds",
                "Event time to probe (includes waiting for the worker's commit).",
                buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
                registry=reg,
            ),
        )


@dataclass(frozen=True, slots=True)
class PendingEvent:
    partition: int
    offset: int
    event: ProductSpecUpdated


@dataclass
class ConsistencyChecker:
    store: RedisTagStore
    mappings: MappingSet
    variants: Callable[[str], Awaitable[Mapping[str, Collection[str]]]]
    products: Callable[[], Awaitable[Collection[str]]]
    metrics: CheckerMetrics = field(default_factory=CheckerMetrics.create)
    probe_limit: int = 1000
    #: How many recent event identities are remembered to skip redeliveries.
    remember: int = 100_000
    _pending: deque[PendingEvent] = field(default_factory=deque)
    _seen: OrderedDict[EventIdentity, None] = field(default_factory=OrderedDict)
    _checked: int = 0
    _violations: int = 0
    _events: int = 0

    def add(self, partition: int, offset: int, event: ProductSpecUpdated) -> bool:
        """Queue an event for probing once acknowledged; a redelivery of an event (same
        CloudEvents source and id) is skipped. Another source's event with the same id is
        another event and is probed."""
        if event.identity in self._seen:
            return False
        self._seen[event.identity] = None
        if len(self._seen) > self.remember:
            self._seen.popitem(last=False)
        self._pending.append(PendingEvent(partition, offset, event))
        return True

    @property
    def waiting(self) -> int:
        return len(self._pending)

    def report(self) -> ConsistencyReport:
        return ConsistencyReport(self._checked, self._violations, self._events)

    async def check_acknowledged(self, committed: Mapping[int, int]) -> int:
        """Probe every pending event the worker group has committed past."""
        ready = [p for p in self._pending if committed.get(p.partition, -1) > p.offset]
        for item in ready:
            self._pending.remove(item)
            await self.check(item.event)
        return len(ready)

    async def check(self, event: ProductSpecUpdated) -> tuple[int, int]:
        """Probe the answers tagged with the event's tags; returns (checked, violations)."""
        plan = plan_invalidation(
            event,
            self.mappings,
            variants=await self.variants(event.product_id),
            all_products=await self.products(),
        )
        checked = violations = 0
        for bump in plan.bumps:
            bumped = set(bump.fields)
            for layer, digest in await self.store.indexed_entries(bump.product, self.probe_limit):
                snapshot = await self.store.peek(bump.product, layer, digest)
                if snapshot is None or not bumped & set(snapshot.fields):
                    continue  # not tagged with this event's tags
                result = await self.store.lookup(bump.product, layer, digest)
                if result.status is not LookupStatus.HIT or result.body is None:
                    checked += 1
                    continue
                versions = spec_versions_of(result.body) or {}
                if event.product_id not in versions and bump.product != event.product_id:
                    continue  # a fanned-out answer that records no store version: no verdict
                checked += 1
                if versions.get(event.product_id, -1) < event.spec_version:
                    violations += 1
                    log.error(
                        "consistency violation: %s/%s:%s built from %s served after %s v%d",
                        bump.product,
                        layer.value,
                        digest[:12],
                        versions,
                        event.identity,
                        event.spec_version,
                    )
        self._checked += checked
        self._violations += violations
        self._events += 1
        self.metrics.checked_reads.inc(checked)
        self.metrics.violations.inc(violations)
        self.metrics.events_checked.inc()
        self.metrics.probe_delay.observe(max(0.0, time.time() - event.time.timestamp()))
        return checked, violations
