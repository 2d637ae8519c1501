"""Redis as a recoverable replica of the event log: a private redis-server with RDB
snapshots is rolled back and flushed under a real worker, broker and Postgres."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_event_log import KafkaEventLog
from services.adapters.redis_tag_store import LookupStatus, RedisTagStore, ReplicaKeys
from services.coherence.process import WorkerProcess
from services.core.errors import StoreUnavailable
from services.core.events import ProductSpecUpdated, new_event
from services.core.keys import Layer
from services.core.tags import answer_tags
from tests.integration.coherence.conftest import WorkerEnv

pytestmark = [pytest.mark.integration]

LEASE_MS = 2000


def _guarded(url: str, env: WorkerEnv) -> RedisTagStore:
    """A store as a gateway has it: lookups need the lease and never go back in time."""
    return RedisTagStore(
        aioredis.Redis.from_url(url), env.keys, replica=ReplicaKeys(env.keys.prefix)
    )


async def _until(
    what: str, probe: Callable[[], object], timeout_s: float = 60.0, every_s: float = 0.1
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = probe()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        await asyncio.sleep(every_s)
    raise AssertionError(f"timed out waiting for {what}")


async def _fill(store: RedisTagStore, product: str, slot: str, digest: str) -> None:
    fields = [t.field for t in answer_tags(product, "query_spec", [slot], ())]
    snapshot = await store.snapshot(product, fields)
    assert await store.fill(Layer.SEMANTIC, digest, snapshot, b"v1 answer", ttl_ms=600_000)


async def _status(store: RedisTagStore, product: str, digest: str) -> LookupStatus:
    return (await store.lookup(product, Layer.SEMANTIC, digest)).status


def _publish(env: WorkerEnv, event: ProductSpecUpdated) -> tuple[int, int]:
    with env.publisher() as pub:
        meta = pub.publish(event)
    return int(meta.partition), int(meta.offset)


async def _committed(env: WorkerEnv, where: tuple[int, int]) -> None:
    """Until the worker group committed past the record (the event is acknowledged)."""
    log = KafkaEventLog(env.broker.bootstrap, env.topic, env.group)
    partition, offset = where
    try:
        await _until("the commit", lambda: log.committed().get(partition, -1) > offset)
    finally:
        log.close()


async def _status_is(store: RedisTagStore, digest: str, wanted: LookupStatus) -> bool:
    return await _status(store, "iphone_16", digest) is wanted


async def test_restore_from_a_stale_snapshot_and_a_flush_never_serve_stale_answers(
    fresh_env: Callable[[], WorkerEnv], tmp_path: Path
) -> None:
    env = fresh_env()
    with RedisServerProcess(data_dir=tmp_path / "redis", snapshots=True) as redis_server:
        worker = env.worker(
            "replica",
            CACHECOH_REDIS_URL=redis_server.url,
            CACHECOH_REPLICA_LEASE_MS=str(LEASE_MS),
            CACHECOH_REPLICA_CHECK_INTERVAL_S="0.5",
        ).start()
        try:
            worker.wait_ready()
            await _rolled_back(env, worker, redis_server)
            await _flushed(env, worker, redis_server)
        finally:
            worker.stop()


async def _rolled_back(
    env: WorkerEnv, worker: WorkerProcess, redis_server: RedisServerProcess
) -> None:
    gateway = _guarded(redis_server.url, env)

    async def leased() -> bool:  # a miss, not UNVERIFIED: the worker verified Redis
        return await _status(gateway, "iphone_15", "none") is LookupStatus.MISS

    await _until("the worker's lease", leased)
    await _fill(gateway, "iphone_15", "battery_life", "battery")
    assert await _status(gateway, "iphone_15", "battery") is LookupStatus.HIT
    plain = aioredis.Redis.from_url(redis_server.url)
    await plain.save()  # the snapshot: the v1 answer, the old generations, a live lease
    event = new_event("iphone_15", ["battery_life"], 2, source="pim")
    await _committed(env, _publish(env, event))
    assert await _status(gateway, "iphone_15", "battery") is LookupStatus.STALE
    await asyncio.sleep(LEASE_MS / 1000 + 0.5)  # the snapshot's lease is now expired
    redis_server.restart()  # loads the snapshot: the v1 answer is valid there again
    late_gateway = _guarded(redis_server.url, env)  # never saw the newer dataset
    reapplied_before = worker.metric("cachecoh_coherence_replica_reapplied_records_total") or 0
    statuses: list[LookupStatus] = []

    async def repaired() -> bool:
        for store in (gateway, late_gateway):
            try:
                statuses.append(await _status(store, "iphone_15", "battery"))
            except StoreUnavailable:  # the first call after the restart: fails open
                statuses.append(LookupStatus.MISS)
        return statuses[-1] is LookupStatus.STALE or statuses[-1] is LookupStatus.MISS

    await _until("the worker's repair", repaired, every_s=0.02)
    assert LookupStatus.HIT not in statuses
    assert LookupStatus.UNVERIFIED in statuses  # the window was closed, not raced
    reapplied = worker.metric("cachecoh_coherence_replica_reapplied_records_total") or 0
    assert reapplied > reapplied_before
    # and the cache works again once repaired
    await _fill(late_gateway, "iphone_15", "battery_life", "battery-v2")
    assert await _status(late_gateway, "iphone_15", "battery-v2") is LookupStatus.HIT
    assert await _status(gateway, "iphone_15", "battery-v2") is LookupStatus.HIT
    await plain.aclose()


async def _flushed(env: WorkerEnv, worker: WorkerProcess, redis_server: RedisServerProcess) -> None:
    gateway = _guarded(redis_server.url, env)
    await _fill(gateway, "iphone_16", "weight", "weight")
    assert await _status(gateway, "iphone_16", "weight") is LookupStatus.HIT
    plain = aioredis.Redis.from_url(redis_server.url)
    await plain.flushall()  # a private server: a flushed or replaced instance
    assert await _status(gateway, "iphone_16", "weight") is LookupStatus.UNVERIFIED
    adopted = 'cachecoh_coherence_replica_checks_total{result="adopted"}'
    await _until("adoption", lambda: (worker.metric(adopted) or 0) >= 1)
    # adopted without replay: the flushed dataset had nothing older to serve
    await _until("the lease", lambda: _status_is(gateway, "weight", LookupStatus.MISS))
    event = new_event("iphone_16", ["weight"], 3, source="erp")
    await _fill(gateway, "iphone_16", "weight", "weight")
    await _committed(env, _publish(env, event))
    assert await _status(gateway, "iphone_16", "weight") is LookupStatus.STALE
    await plain.aclose()
