"""Reads and fills against the real store, each read checked against the watermark.

A **fill** is the gateway's miss path: snapshot the answer's tag generations, *then* read
the facts (the current version), optionally wait like a slow LLM call, then the guarded
fill. A **read** is the real Lua lookup. A read captures the watermark floor of its fact
before it is sent; a hit that serves an older version than that floor is a **stale read**
(promise 1 broken). Errors (Redis restarting) are counted apart, never as stale.

``plant_stale_fraction`` exists only to prove the checker can fail: that share of fills
write an answer one version behind with a plain ``SET`` (no guard, current generations),
which the check must report as stale reads.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from redis.exceptions import RedisError

from services.adapters.redis_tag_store import LookupStatus, RedisTagStore
from services.core.entries import encode_entry
from services.core.errors import StoreUnavailable
from services.core.keys import Layer
from services.core.tags import answer_tags
from services.harness.faults.ground_truth import AckWatermark, FactKey, FactVersions

INTENT = "query_spec"


@dataclass(frozen=True, slots=True)
class LoadShape:
    readers: int = 16
    read_rate: float = 3000.0  # reads per second over all readers (leaves CPU to the rest)
    answers_per_fact: int = 4  # distinct cached questions per (product, slot)
    max_fills_in_flight: int = 64
    slow_fill_fraction: float = 0.2
    slow_fill_ms: tuple[int, int] = (50, 500)
    entry_ttl_ms: int = 600_000
    plant_stale_fraction: float = 0.0  # checker self-test only


@dataclass(frozen=True, slots=True)
class StaleRead:
    product: str
    slot: str
    digest: str
    served_version: int
    floor: int
    at_s: float  # seconds into the run


@dataclass
class ReadStats:
    """Counters of the load (mutated by one event loop only)."""

    reads: int = 0
    hits: int = 0
    misses: int = 0
    invalidated: int = 0  # lookup found the entry and refused it (generation moved)
    unverified: int = 0  # Redis possibly behind the log: nothing served (fails open)
    hits_under_watermark: int = 0  # hits whose fact had an acknowledged event
    stale_reads: int = 0
    wrong_answers: int = 0  # a body about another fact: a key-derivation bug
    read_errors: int = 0
    fills: int = 0
    fills_stored: int = 0
    fills_refused: int = 0
    slow_fills: int = 0
    planted_stale: int = 0
    fill_errors: int = 0
    stale_examples: list[StaleRead] = field(default_factory=list)
    #: Per fault kind: reads checked within ``AFTER_FAULT_S`` after one ended, the hits
    #: among them served under an acknowledged event, and the stale ones (promise 1).
    checked_after: Counter[str] = field(default_factory=Counter)
    hits_checked_after: Counter[str] = field(default_factory=Counter)
    stale_after: Counter[str] = field(default_factory=Counter)

    @property
    def reads_checked(self) -> int:
        """Reads that completed (hit, miss, invalidated or unverified), each checked."""
        return self.hits + self.misses + self.invalidated + self.unverified

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["reads_checked"] = self.reads_checked
        out["after_faults"] = {
            fault: {
                "reads_checked": self.checked_after[fault],
                "hits_under_watermark": self.hits_checked_after[fault],
                "stale_reads": self.stale_after[fault],
            }
            for fault in sorted(self.checked_after)
        }
        for name in ("checked_after", "hits_checked_after", "stale_after"):
            out.pop(name)
        out["stale_examples"] = [asdict(s) for s in self.stale_examples[:10]]
        return out


def answer_body(key: FactKey, version: int) -> bytes:
    return json.dumps({"p": key.product, "s": key.slot, "v": version}).encode()


#: A read this soon after a fault ended is attributed to it in ``ReadStats.*_after``.
AFTER_FAULT_S = 10.0


class ReadLoad:
    def __init__(
        self,
        store: RedisTagStore,
        facts: FactVersions,
        watermark: AckWatermark,
        keys: Sequence[FactKey],
        shape: LoadShape,
        rng: random.Random,
        last_fault: Callable[[], tuple[str, float] | None] = lambda: None,
    ) -> None:
        self._store = store
        self._last_fault = last_fault
        self._facts = facts
        self._watermark = watermark
        self._answers = [(k, f"{k.slot}-q{n}") for k in keys for n in range(shape.answers_per_fact)]
        self._fields = {
            k: sorted(t.field for t in answer_tags(k.product, INTENT, [k.slot])) for k in keys
        }
        self._shape = shape
        self._rng = rng
        self._fill_slots = asyncio.Semaphore(shape.max_fills_in_flight)
        self._filling: set[tuple[FactKey, str]] = set()
        self._fill_tasks: set[asyncio.Task[None]] = set()
        self._started = time.monotonic()
        self.stats = ReadStats()

    async def run(self, done: Callable[[], bool]) -> None:
        """Read until ``done()`` says so, then let in-flight fills finish."""
        self._started = time.monotonic()
        await asyncio.gather(*(self._reader(n, done) for n in range(self._shape.readers)))
        if self._fill_tasks:
            await asyncio.gather(*self._fill_tasks, return_exceptions=True)

    async def _reader(self, n: int, done: Callable[[], bool]) -> None:
        interval = self._shape.readers / self._shape.read_rate
        due = time.monotonic() + interval * n / self._shape.readers
        while not done():
            now = time.monotonic()
            if due > now:
                await asyncio.sleep(due - now)
            due = max(due + interval, time.monotonic() - 1.0)  # no burst after a stall
            await self.read_once(*self._rng.choice(self._answers))

    async def read_once(self, key: FactKey, digest: str) -> None:
        stats = self.stats
        stats.reads += 1
        floor = self._watermark.floor(key)  # before the read is sent: it "starts" now
        try:
            found = await self._store.lookup(key.product, Layer.SEMANTIC, digest)
        except StoreUnavailable:
            stats.read_errors += 1
            await asyncio.sleep(0.05)
            return
        fault = self._recent_fault()
        if fault is not None:
            stats.checked_after[fault] += 1
        if found.status is LookupStatus.HIT:
            stats.hits += 1
            self._check(key, digest, found.body or b"", floor, fault)
            return
        if found.status is LookupStatus.STALE:
            stats.invalidated += 1
        elif found.status is LookupStatus.UNVERIFIED:
            stats.unverified += 1
        else:
            stats.misses += 1
        self._start_fill(key, digest)

    def _recent_fault(self) -> str | None:
        last = self._last_fault()
        if last is None or time.monotonic() - last[1] > AFTER_FAULT_S:
            return None
        return str(last[0])

    def _check(self, key: FactKey, digest: str, body: bytes, floor: int, fault: str | None) -> None:
        stats = self.stats
        answer = json.loads(body)
        if (answer["p"], answer["s"]) != (key.product, key.slot):
            stats.wrong_answers += 1
            return
        if floor == 0:
            return
        stats.hits_under_watermark += 1
        if fault is not None:
            stats.hits_checked_after[fault] += 1
        if int(answer["v"]) < floor:
            stats.stale_reads += 1
            if fault is not None:
                stats.stale_after[fault] += 1
            if len(stats.stale_examples) < 10:
                stats.stale_examples.append(
                    StaleRead(
                        key.product,
                        key.slot,
                        digest,
                        int(answer["v"]),
                        floor,
                        round(time.monotonic() - self._started, 3),
                    )
                )

    def _start_fill(self, key: FactKey, digest: str) -> None:
        if (key, digest) in self._filling or self._fill_slots.locked():
            return  # single flight per answer; a full miss path sheds, like the gateway
        self._filling.add((key, digest))
        task = asyncio.create_task(self._fill(key, digest))
        self._fill_tasks.add(task)
        task.add_done_callback(self._fill_tasks.discard)

    async def _fill(self, key: FactKey, digest: str) -> None:
        stats = self.stats
        async with self._fill_slots:
            try:
                stats.fills += 1
                snapshot = await self._store.snapshot(key.product, self._fields[key])
                version = self._facts.current(key)  # facts are read after the snapshot
                if self._rng.random() < self._shape.slow_fill_fraction:
                    stats.slow_fills += 1
                    low, high = self._shape.slow_fill_ms
                    await asyncio.sleep(self._rng.uniform(low, high) / 1000)
                if self._rng.random() < self._shape.plant_stale_fraction and version > 1:
                    await self._plant_stale(key, digest, version - 1)
                    return
                stored = await self._store.fill(
                    Layer.SEMANTIC,
                    digest,
                    snapshot,
                    answer_body(key, version),
                    ttl_ms=self._shape.entry_ttl_ms,
                )
                if stored:
                    stats.fills_stored += 1
                else:
                    stats.fills_refused += 1
            except (StoreUnavailable, RedisError):  # RedisError: the planting path's SET
                stats.fill_errors += 1
            finally:
                self._filling.discard((key, digest))

    async def _plant_stale(self, key: FactKey, digest: str, old_version: int) -> None:
        """A buggy filler: an old answer under *current* generations, no guard."""
        snapshot = await self._store.snapshot(key.product, self._fields[key])
        entry = encode_entry(snapshot, answer_body(key, old_version))
        entry_key = self._store.keys.entry(key.product, Layer.SEMANTIC, digest)
        await self._store.client.set(entry_key, entry, px=self._shape.entry_ttl_ms)
        self.stats.planted_stale += 1
