"""The consistency checker against the real worker, broker, Redis and Postgres."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis

from services.adapters.redis_tag_store import RedisTagStore
from services.coherence.process import WorkerProcess
from services.consistency.runner import build_checker_run
from services.consistency.settings import ConsistencySettings
from services.core.entries import encode_entry
from services.core.events import new_event
from services.core.keys import Layer
from services.core.tags import answer_tags
from tests.integration.coherence.conftest import WorkerEnv

pytestmark = [pytest.mark.integration]


def _body(product: str, version: int) -> bytes:
    return json.dumps({"spec_versions": {product: version}}).encode() + b"\n{}"


async def _fill(store: RedisTagStore, product: str, slot: str, digest: str, version: int) -> None:
    fields = [t.field for t in answer_tags(product, "query_spec", [slot])]
    snap = await store.snapshot(product, fields)
    assert await store.fill(Layer.SEMANTIC, digest, snap, _body(product, version), ttl_ms=60_000)


async def test_checker_counts_probes_and_catches_a_planted_stale_answer(
    running_worker: WorkerProcess, worker_env: WorkerEnv, redis_client: aioredis.Redis
) -> None:
    settings = ConsistencySettings(
        kafka_bootstrap=worker_env.broker.bootstrap,
        topic=worker_env.topic,
        coherence_group=worker_env.group,
        checker_group=f"{worker_env.group}-checker",
        redis_url=worker_env.redis_url,
        redis_prefix=worker_env.keys.prefix,
        database_url=worker_env.database_url,
        metrics_port=0,
    )
    run = build_checker_run(settings)
    store = RedisTagStore(redis_client, worker_env.keys)
    stop = asyncio.Event()
    task = asyncio.create_task(run.run(stop))
    await asyncio.wait_for(run.ready.wait(), 60)

    # honest traffic: answers at v1, an update to v2, fresh answers at v2
    await _fill(store, "samsung_galaxy_s24", "weight", "w1", 1)
    await _fill(store, "samsung_galaxy_s24", "weight", "w2", 1)
    first = new_event("samsung_galaxy_s24", ["weight"], 2, source="test")
    with worker_env.publisher() as pub:
        pub.publish(first)
    assert worker_env.wait_audited({first.event_id})
    await _fill(store, "samsung_galaxy_s24", "weight", "w3", 2)

    for _ in range(100):
        if run.checker.report().events_checked >= 1 and run.checker.waiting == 0:
            break
        await asyncio.sleep(0.1)
    stop.set()
    report = await task
    assert report.events_checked >= 1
    assert report.checked_reads >= 3  # w1, w2 (stale, not served) and w3 (fresh)
    assert report.violations == 0

    # A writer that bypasses the guard plants a v1 answer under the current generations
    # after v2 was acknowledged: probing for that event must flag it.
    fields = [t.field for t in answer_tags("samsung_galaxy_s24", "query_spec", ["weight"])]
    current = await store.snapshot("samsung_galaxy_s24", fields)
    await redis_client.set(
        worker_env.keys.entry("samsung_galaxy_s24", Layer.SEMANTIC, "planted"),
        encode_entry(current, _body("samsung_galaxy_s24", 1)),
        px=60_000,
    )
    await redis_client.zadd(
        worker_env.keys.entry_index("samsung_galaxy_s24"), {"sem:planted": 2**50}
    )
    checked, violations = await run.checker.check(first)
    assert violations == 1 and checked >= 2
