"""Per-batch instead of per-record work in the worker: one histogram update for a value
every record of a batch shares, and the applying task taking every fetch that waits."""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry, Histogram

from services.adapters.faust_transport import BatchHandoff, FetchedBatch
from services.coherence.metrics import LAG_BUCKETS, observe_many


def _samples(histogram: Histogram) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for metric in histogram.collect()
        for s in metric.samples
        if not s.name.endswith("_created")
    }


def _histogram(registry: CollectorRegistry) -> Histogram:
    return Histogram("h_seconds", "test", registry=registry, buckets=LAG_BUCKETS)


def test_observe_many_equals_repeated_observe() -> None:
    many, repeated = _histogram(CollectorRegistry()), _histogram(CollectorRegistry())
    for value, count in [(0.0004, 3), (0.0031, 7), (0.0075, 2), (0.4, 1), (99.0, 5), (0.02, 0)]:
        observe_many(many, value, count)
        for _ in range(count):
            repeated.observe(value)
    assert _samples(many) == _samples(repeated)
    assert _samples(many)[("h_seconds_count", ())] == 18


def test_the_applying_task_takes_every_waiting_fetch_as_one_batch() -> None:
    async def run() -> tuple[list[int], list[int], list[int]]:
        handoff = BatchHandoff(depth=4)
        for fetch in ([1, 2], [3], [4, 5, 6], [7]):
            await handoff.queue.put(FetchedBatch(list(fetch)))
        merged = await handoff.take(limit=5)  # whole fetches, until 5 records are taken
        rest = await handoff.take(limit=5)
        await handoff.queue.put(FetchedBatch([8]))
        alone = await handoff.take(limit=5)
        return merged, rest, alone

    merged, rest, alone = asyncio.run(run())
    assert merged == [1, 2, 3, 4, 5, 6]
    assert rest == [7]
    assert alone == [8]


def test_fetches_wait_behind_the_applied_one_up_to_the_depth() -> None:
    async def run() -> bool:
        handoff = BatchHandoff(depth=2)
        await handoff.queue.put(FetchedBatch([1]))
        await handoff.queue.put(FetchedBatch([2]))
        third = asyncio.ensure_future(handoff.queue.put(FetchedBatch([3])))
        await asyncio.sleep(0.01)
        blocked = not third.done()
        await handoff.take(limit=500)
        await asyncio.wait_for(third, 1.0)
        return blocked

    assert asyncio.run(run())  # backpressure: the drain loop waits while `depth` wait
