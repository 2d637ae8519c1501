"""Ground truth of the fault suite: what the facts are, and what has been acknowledged.

The harness is the business system: per (product, slot) it holds the current *fact
version*. An update increments it and publishes an event carrying the new version. Once
the worker group's committed offset passes that event, the event is *acknowledged*, and
promise 1 says no read that starts afterwards may serve an answer built from an older
version. ``AckWatermark.floor`` is that lower bound, per (product, slot).

Threads: the update stream advances versions and records published events, the offset
poller advances the watermark, the readers (asyncio thread) read both. Every shared
structure is guarded by a lock; ``floor`` is one dict read.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class FactKey:
    """One slot of one product: the unit a fact version (and an answer) is about."""

    product: str
    slot: str


@dataclass(frozen=True, slots=True)
class PublishedEvent:
    """An event the broker acknowledged, and where it landed."""

    #: The CloudEvents identity, ``source#id`` (``EventIdentity``'s text).
    event_id: str
    key: FactKey
    version: int
    partition: int
    offset: int
    published_at: float  # time.monotonic() when the broker acknowledged it


class FactVersions:
    """The current version of every fact; starts at 1 (no event has changed it yet)."""

    def __init__(self, keys: Iterable[FactKey]) -> None:
        self._versions = dict.fromkeys(keys, 1)
        self._lock = threading.Lock()

    def current(self, key: FactKey) -> int:
        return self._versions[key]

    def advance(self, key: FactKey) -> int:
        """The facts change: returns the new version (an event must announce it)."""
        with self._lock:
            self._versions[key] += 1
            return self._versions[key]


@dataclass(frozen=True, slots=True)
class AckProgress:
    published: int
    acknowledged: int
    max_ack_lag_s: float


class AckWatermark:
    """Per fact, the highest version whose event the worker group has acknowledged."""

    def __init__(self) -> None:
        self._floors: dict[FactKey, int] = {}
        self._pending: dict[int, list[tuple[int, int, PublishedEvent]]] = {}
        self._sequence = 0  # tie-breaker: a duplicate shares nothing but its partition
        self._published = 0
        self._acknowledged = 0
        self._max_ack_lag_s = 0.0
        self._lock = threading.Lock()

    def floor(self, key: FactKey) -> int:
        """The lowest version a read starting now may serve (0: nothing acknowledged)."""
        return self._floors.get(key, 0)

    def record(self, event: PublishedEvent) -> None:
        with self._lock:
            self._sequence += 1
            self._published += 1
            heapq.heappush(
                self._pending.setdefault(event.partition, []),
                (event.offset, self._sequence, event),
            )

    def advance(self, committed: Mapping[int, int]) -> None:
        """Committed offsets observed: every event below them is acknowledged."""
        now = time.monotonic()
        with self._lock:
            for partition, next_offset in committed.items():
                pending = self._pending.get(partition)
                while pending and pending[0][0] < next_offset:
                    _, _, event = heapq.heappop(pending)
                    if event.version > self._floors.get(event.key, 0):
                        self._floors[event.key] = event.version
                    self._acknowledged += 1
                    self._max_ack_lag_s = max(self._max_ack_lag_s, now - event.published_at)

    def progress(self) -> AckProgress:
        with self._lock:
            return AckProgress(self._published, self._acknowledged, self._max_ack_lag_s)
