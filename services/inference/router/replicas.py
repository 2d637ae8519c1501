"""The router's view of its replicas: load, health, ejection, and routing over them.

A replica is ejected after ``eject_after_failures`` failed health checks in a row, or at
once when a proxied connection to it fails; a passing health check readmits it. Ejection
only takes a replica off the candidates: on the consistent-hash ring its keys move to
the next replica, everyone else's stay where they are.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import Counter, deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from prometheus_client import CollectorRegistry, Gauge
from prometheus_client import Counter as PromCounter

from services.core.routing import (
    ConsistentHashRing,
    ReplicaState,
    RouteDecision,
    RoutingPolicy,
    decide,
)

logger = logging.getLogger(__name__)


def replica_name(url: str) -> str:
    """A replica's stable identity on the ring: its ``host:port``."""
    parts = urlsplit(url)
    return parts.netloc or url


@dataclass
class _Replica:
    name: str
    url: str
    healthy: bool = True
    in_flight: int = 0
    routed_total: int = 0
    consecutive_failures: int = 0
    ejections: int = 0
    #: A health probe has passed since the last failure (readiness).
    probed_ok: bool = False
    waiting: int = 0
    kv_usage: float = 0.0

    def state(self, excluded: Collection[str], recent_routed: int) -> ReplicaState:
        return ReplicaState(
            name=self.name,
            healthy=self.healthy and self.name not in excluded,
            in_flight=self.in_flight,
            routed_total=self.routed_total,
            recent_routed=recent_routed,
            waiting=self.waiting,
            kv_usage=self.kv_usage,
        )


@dataclass(frozen=True, slots=True)
class ReplicaView:
    name: str
    url: str
    healthy: bool
    in_flight: int
    routed_total: int
    consecutive_failures: int
    ejections: int
    waiting: int
    kv_usage: float


class RouterMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = PromCounter(
            "cachecoh_router_requests",
            "Requests routed, by replica and routing reason.",
            ["replica", "reason"],
            registry=registry,
        )
        self.upstream_failures = PromCounter(
            "cachecoh_router_upstream_failures",
            "Failed proxy attempts and health checks, by replica and kind.",
            ["replica", "kind"],
            registry=registry,
        )
        self.ejections = PromCounter(
            "cachecoh_router_ejections", "Replicas ejected.", ["replica"], registry=registry
        )
        self.healthy = Gauge(
            "cachecoh_router_replica_healthy",
            "1 if the replica takes requests.",
            ["replica"],
            registry=registry,
        )
        self.in_flight = Gauge(
            "cachecoh_router_in_flight",
            "Requests in flight per replica.",
            ["replica"],
            registry=registry,
        )


class ReplicaPool:
    """Mutable replica state; decisions are delegated to the pure routing functions.

    Used from one event loop only, so plain attributes need no lock.
    """

    def __init__(
        self,
        urls: list[str],
        *,
        policy: RoutingPolicy,
        load_factor: float,
        load_window: int,
        max_in_flight_gap: int,
        ring_vnodes: int,
        eject_after_failures: int,
        metrics: RouterMetrics,
        max_kv_usage: float = 0.95,
        on_eject: Callable[[str], None] | None = None,
    ) -> None:
        self._replicas = {replica_name(url): _Replica(replica_name(url), url) for url in urls}
        if len(self._replicas) != len(urls):
            raise ValueError(f"duplicate upstreams in {urls}")
        self.policy = policy
        self.load_factor = load_factor
        self.max_in_flight_gap = max_in_flight_gap
        # The last ``load_window`` routing decisions, and how many each replica took.
        self._window: deque[str] = deque(maxlen=load_window)
        self._recent: Counter[str] = Counter()
        self.eject_after_failures = eject_after_failures
        self.ring = ConsistentHashRing(list(self._replicas), vnodes=ring_vnodes)
        self._turns = itertools.count()
        self._metrics = metrics
        self.max_kv_usage = max_kv_usage
        self._on_eject = on_eject
        for name in self._replicas:
            metrics.healthy.labels(replica=name).set(1)

    @staticmethod
    def names_for(urls: Sequence[str]) -> list[str]:
        """The replica names a pool over ``urls`` uses, in order."""
        return [replica_name(url) for url in urls]

    def url(self, name: str) -> str:
        return self._replicas[name].url

    @property
    def names(self) -> list[str]:
        return list(self._replicas)

    def any_healthy(self) -> bool:
        return any(r.healthy for r in self._replicas.values())

    def ready(self) -> bool:
        """Readiness: some replica is healthy and has passed a health probe."""
        return any(r.healthy and r.probed_ok for r in self._replicas.values())

    def update_load(self, name: str, *, waiting: float, kv_usage: float | None) -> None:
        """Load scraped from the replica's /metrics."""
        replica = self._replicas[name]
        replica.waiting = int(waiting)
        if kv_usage is not None:
            replica.kv_usage = kv_usage

    def choose(
        self,
        prefix_key: str | None,
        excluded: Collection[str] = (),
        *,
        matched: Mapping[str, int] | None = None,
        block_keys: Sequence[str] = (),
    ) -> RouteDecision:
        """Pick a replica and count it as in flight (call :meth:`finish` afterwards)."""
        snapshot = [r.state(excluded, self._recent[r.name]) for r in self._replicas.values()]
        decision = decide(
            self.policy,
            snapshot,
            turn=next(self._turns),
            ring=self.ring,
            prefix_key=prefix_key,
            load_factor=self.load_factor,
            max_in_flight_gap=self.max_in_flight_gap,
            load_window=self._window.maxlen or 0,
            matched=matched,
            block_keys=block_keys,
            max_kv_usage=self.max_kv_usage,
        )
        self._remember(decision.replica)
        replica = self._replicas[decision.replica]
        replica.in_flight += 1
        replica.routed_total += 1
        self._metrics.requests.labels(replica=replica.name, reason=decision.reason.value).inc()
        self._metrics.in_flight.labels(replica=replica.name).set(replica.in_flight)
        return decision

    def _remember(self, name: str) -> None:
        if len(self._window) == self._window.maxlen:
            self._recent[self._window[0]] -= 1
        self._window.append(name)
        self._recent[name] += 1

    def finish(self, name: str) -> None:
        replica = self._replicas[name]
        replica.in_flight -= 1
        self._metrics.in_flight.labels(replica=name).set(replica.in_flight)

    def connection_failed(self, name: str, kind: str) -> None:
        """A proxied request could not reach the replica: eject it now."""
        self._metrics.upstream_failures.labels(replica=name, kind=kind).inc()
        replica = self._replicas[name]
        replica.consecutive_failures = max(replica.consecutive_failures, self.eject_after_failures)
        self._eject(replica, f"proxy {kind}")

    def health_result(self, name: str, ok: bool, detail: str = "") -> None:
        replica = self._replicas[name]
        if ok:
            replica.consecutive_failures = 0
            replica.probed_ok = True
            if not replica.healthy:
                replica.healthy = True
                self._metrics.healthy.labels(replica=name).set(1)
                logger.warning("replica %s readmitted", name)
            return
        self._metrics.upstream_failures.labels(replica=name, kind="health").inc()
        replica.probed_ok = False
        replica.consecutive_failures += 1
        if replica.consecutive_failures >= self.eject_after_failures:
            self._eject(replica, f"health check: {detail}")

    def _eject(self, replica: _Replica, reason: str) -> None:
        if not replica.healthy:
            return
        replica.healthy = False
        replica.ejections += 1
        self._metrics.healthy.labels(replica=replica.name).set(0)
        self._metrics.ejections.labels(replica=replica.name).inc()
        logger.warning("replica %s ejected (%s)", replica.name, reason)
        if self._on_eject is not None:
            # It may come back restarted: what it was said to cache is no longer known.
            self._on_eject(replica.name)

    def views(self) -> list[ReplicaView]:
        return [
            ReplicaView(
                name=r.name,
                url=r.url,
                healthy=r.healthy,
                in_flight=r.in_flight,
                routed_total=r.routed_total,
                consecutive_failures=r.consecutive_failures,
                ejections=r.ejections,
                waiting=r.waiting,
                kv_usage=r.kv_usage,
            )
            for r in self._replicas.values()
        ]


async def check_health(pool: ReplicaPool, client: httpx.AsyncClient, probe_timeout: float) -> None:
    """One round of ``GET /health`` on every replica, concurrently."""

    async def probe(name: str) -> None:
        try:
            response = await client.get(f"{pool.url(name)}/health", timeout=probe_timeout)
        except httpx.HTTPError as exc:
            pool.health_result(name, False, type(exc).__name__)
            return
        pool.health_result(name, response.status_code == 200, f"HTTP {response.status_code}")

    await asyncio.gather(*(probe(name) for name in pool.names))


async def health_loop(
    pool: ReplicaPool, client: httpx.AsyncClient, *, interval: float, probe_timeout: float
) -> None:
    while True:
        await check_health(pool, client, probe_timeout)
        await asyncio.sleep(interval)
