"""Single flight per cache key: one upstream call per key, every other asker waits for it.

In-process, waiters await the owner's future; across replicas, a Redis lease names the
owner and the others poll the store for its fill until the lease is let go.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from services.adapters.redis_tag_store import LookupStatus
from services.core.errors import StoreUnavailable
from services.core.keys import Layer
from services.gateway.metrics import GatewayMetrics
from services.gateway.ports import AnswerStore, LeaseStore


@dataclass(slots=True)
class Flight:
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


class SingleFlights:
    """The flights of one process, and the lease protocol with the other replicas."""

    def __init__(
        self,
        store: AnswerStore,
        leases: LeaseStore,
        metrics: GatewayMetrics,
        *,
        wait_s: float,
        poll_s: float,
    ) -> None:
        self._store = store
        self._leases = leases
        self._metrics = metrics
        self._wait_s = wait_s
        self._poll_s = poll_s
        self._flights: dict[str, Flight] = {}

    def current(self, key: str) -> Flight | None:
        """The live flight of ``key`` in this process, if any."""
        flight = self._flights.get(key)
        return flight if flight is not None and flight.deadline > time.monotonic() else None

    def start(self, key: str, layer: Layer) -> Flight:
        flight = Flight(
            key,
            layer,
            asyncio.get_running_loop().create_future(),
            time.monotonic() + self._wait_s,
        )
        self._flights[key] = flight
        return flight

    async def acquire_lease(self, flight: Flight) -> None:
        """Take the cross-replica lease (``flight.token`` stays None if another holds it).

        Raises :class:`StoreUnavailable` when Redis cannot be asked.
        """
        flight.token = await self._leases.acquire(flight.key)

    async def finish(self, flight: Flight) -> None:
        """Wake the waiters with ``flight.body`` and let go of the lease (once)."""
        if flight.finished:
            return
        flight.finished = True
        if not flight.future.done():
            flight.future.set_result(flight.body)
        if self._flights.get(flight.key) is flight:
            del self._flights[flight.key]
        if flight.token is not None:
            try:
                await self._leases.release(flight.key, flight.token)
            except StoreUnavailable:
                self._metrics.store_errors.labels("lease_release").inc()

    async def wait_local(self, flight: Flight) -> bytes | None:
        """The body the owner in this process stored, or None (not filled, or timed out)."""
        remaining = max(0.0, flight.deadline - time.monotonic())
        try:
            body = await asyncio.wait_for(asyncio.shield(flight.future), remaining)
        except TimeoutError:
            self._metrics.single_flight_waits.labels("timeout").inc()
            return None
        self._metrics.single_flight_waits.labels("filled" if body else "not_filled").inc()
        return body

    async def wait_remote(self, product: str, layer: Layer, digest: str) -> bytes | None:
        """Another replica holds the lease: poll for its fill until it lets go."""
        deadline = time.monotonic() + self._wait_s
        try:
            while time.monotonic() < deadline:
                await asyncio.sleep(self._poll_s)
                lookup = await self._store.lookup(product, layer, digest)
                if lookup.status is LookupStatus.HIT and lookup.body is not None:
                    self._metrics.single_flight_waits.labels("filled").inc()
                    return lookup.body
                if not await self._leases.held(digest):
                    self._metrics.single_flight_waits.labels("not_filled").inc()
                    return None
        except StoreUnavailable:
            self._metrics.store_errors.labels("lease_wait").inc()
            return None
        self._metrics.single_flight_waits.labels("timeout").inc()
        return None
