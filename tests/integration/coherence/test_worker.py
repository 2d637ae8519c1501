"""The coherence worker end to end: real broker, real Redis, real Postgres."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta

import pytest
from kafka import KafkaConsumer, TopicPartition

from services.adapters.redis_tag_store import LookupStatus, RedisTagStore
from services.coherence.process import WorkerProcess
from services.core.events import digest_of, new_event
from services.core.keys import Layer
from services.core.tags import answer_tags
from tests.integration.coherence.conftest import PARTITIONS, WorkerEnv

pytestmark = [pytest.mark.integration]


async def _cache(
    store: RedisTagStore, product: str, slot: str, digest: str, *variants: str
) -> None:
    fields = [t.field for t in answer_tags(product, "query_spec", [slot], variants)]
    snap = await store.snapshot(product, fields)
    assert await store.fill(Layer.SEMANTIC, digest, snap, digest.encode(), ttl_ms=300_000)


async def _status(store: RedisTagStore, product: str, digest: str) -> LookupStatus:
    return (await store.lookup(product, Layer.SEMANTIC, digest)).status


def _dead_letters(
    env: WorkerEnv, expected: int, timeout_s: float = 20.0
) -> list[dict[str, object]]:
    consumer = KafkaConsumer(bootstrap_servers=env.broker.bootstrap, enable_auto_commit=False)
    try:
        parts = [TopicPartition(env.dlq_topic, p) for p in range(PARTITIONS)]
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        out: list[dict[str, object]] = []
        deadline = time.monotonic() + timeout_s
        while len(out) < expected and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                for r in records:
                    out.append({"value": r.value, "headers": {k: v.decode() for k, v in r.headers}})
        return out
    finally:
        consumer.close()


async def test_event_invalidates_affected_answers_only(
    running_worker: WorkerProcess, worker_env: WorkerEnv, store: RedisTagStore
) -> None:
    await _cache(store, "iphone_15", "battery_life", "bl")
    await _cache(store, "iphone_15", "weight", "wt")
    await _cache(store, "iphone_16", "battery_life", "bl16")
    await _cache(store, "tesla_model_y", "range", "range")
    event = new_event("iphone_15", ["battery_life"], 2, source="test")
    capacity = new_event("tesla_model_y", ["battery_capacity"], 2, source="test")
    with worker_env.publisher() as pub:
        pub.publish(event)
        pub.publish(capacity)
    assert worker_env.wait_audited({event.event_id, capacity.event_id}) == {
        event.event_id,
        capacity.event_id,
    }
    assert await _status(store, "iphone_15", "bl") is LookupStatus.STALE
    assert await _status(store, "iphone_15", "wt") is LookupStatus.HIT
    assert await _status(store, "iphone_16", "bl16") is LookupStatus.HIT
    # battery capacity feeds range answers (mapping), so the range answer is gone too
    assert await _status(store, "tesla_model_y", "range") is LookupStatus.STALE


async def test_late_fill_started_before_update_is_refused(
    running_worker: WorkerProcess, worker_env: WorkerEnv, store: RedisTagStore
) -> None:
    fields = [t.field for t in answer_tags("xiaomi_14", "query_spec", ["price"], ["256GB"])]
    snap = await store.snapshot("xiaomi_14", fields)  # the slow fill starts: facts read
    event = new_event("xiaomi_14", ["price.256GB"], 2, source="test")
    with worker_env.publisher() as pub:
        pub.publish(event)
    assert worker_env.wait_audited({event.event_id})
    # the LLM answer (built from old facts) arrives after the event was applied
    assert not await store.fill(Layer.SEMANTIC, "late", snap, b"old answer", ttl_ms=60_000)
    assert await _status(store, "xiaomi_14", "late") is LookupStatus.MISS


async def test_duplicates_and_reordering_only_cost_misses(
    running_worker: WorkerProcess, worker_env: WorkerEnv, store: RedisTagStore
) -> None:
    await _cache(store, "huawei_mate_60", "camera", "cam", "main")
    before = int((await store.generations("huawei_mate_60"))["s:camera.main"])
    duplicates_before = (
        running_worker.metric('cachecoh_coherence_events_total{outcome="duplicate"}') or 0.0
    )
    v3 = new_event("huawei_mate_60", ["camera.main"], 3, source="test")
    v2 = new_event("huawei_mate_60", ["camera.main"], 2, source="test")
    with worker_env.publisher() as pub:
        pub.publish(v3)  # newer first
        pub.publish(v2)
        pub.publish(v3)  # redelivered duplicate
    assert worker_env.wait_audited({v2.event_id, v3.event_id})
    assert await _status(store, "huawei_mate_60", "cam") is LookupStatus.STALE
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        dups = running_worker.metric('cachecoh_coherence_events_total{outcome="duplicate"}')
        if dups and dups > duplicates_before:
            break
        await asyncio.sleep(0.1)
    gens = await store.generations("huawei_mate_60")
    assert int(gens["s:camera.main"]) == before + 2  # two distinct events, the duplicate deduped
    assert gens["_spec_version"] == "3"
    # a fresh answer cached after both events stays servable
    await _cache(store, "huawei_mate_60", "camera", "cam2", "main")
    assert await _status(store, "huawei_mate_60", "cam2") is LookupStatus.HIT


def _bad_records() -> list[tuple[str, bytes | None, bytes]]:
    valid = new_event("iphone_15", ["weight"], 5, source="test").to_cloudevent()

    def mutate(**changes: object) -> bytes:
        doc = json.loads(json.dumps(valid))
        for path, value in changes.items():
            target = doc
            *parents, leaf = path.split("__")
            for p in parents:
                target = target[p]
            if value is None:
                del target[leaf]
            else:
                target[leaf] = value
        return json.dumps(doc).encode()

    return [
        ("not_json", b"iphone_15", b"{not json"),
        ("not_utf8", b"iphone_15", b"\xff\xfe\x00garbage"),
        ("schema_violation", b"iphone_15", mutate(specversion="0.3")),
        ("schema_violation", b"iphone_15", mutate(data__spec_version="7")),
        ("schema_violation", b"iphone_15", mutate(data__changed_fields=None)),
        ("schema_violation", b"iphone_15", mutate(data__surprise=1)),
        ("key_mismatch", b"iphone_16", mutate()),
        ("oversized", b"iphone_15", b"{" + b" " * (70 * 1024) + b"}"),
    ]


async def test_invalid_events_go_to_the_dlq_and_the_stream_goes_on(
    running_worker: WorkerProcess, worker_env: WorkerEnv, store: RedisTagStore
) -> None:
    await _cache(store, "iphone_15", "colors", "colors")
    bad = _bad_records()
    behind = new_event("iphone_15", ["colors"], 6, source="test")
    with worker_env.publisher() as pub:
        for _reason, key, value in bad:
            pub.publish_raw(key, value)
        pub.publish(behind)
    assert worker_env.wait_audited({behind.event_id})
    assert await _status(store, "iphone_15", "colors") is LookupStatus.STALE
    letters = _dead_letters(worker_env, len(bad))
    reasons = sorted(str(letter["headers"]["reason"]) for letter in letters)  # type: ignore[index]
    assert reasons == sorted(r for r, _, _ in bad)
    # the original bytes are kept
    assert {bytes(letter["value"]) for letter in letters} == {v for _, _, v in bad}  # type: ignore[arg-type]
    counts = worker_env.audit().count_by_outcome()
    assert counts.get("dead_lettered", 0) >= len(bad)


async def test_metrics_expose_lag_and_outcomes(
    running_worker: WorkerProcess, worker_env: WorkerEnv
) -> None:
    event = new_event("macbook_air_m3", ["weight"], 2, source="test", time=datetime.now(UTC))
    with worker_env.publisher() as pub:
        pub.publish(event)
    assert worker_env.wait_audited({event.event_id})
    text = running_worker.metrics_text()
    assert 'cachecoh_coherence_events_total{outcome="applied"}' in text
    assert "cachecoh_invalidation_lag_seconds_bucket" in text
    lags = worker_env.audit().lags_ms([event.event_id])
    assert len(lags) == 1 and lags[0] < timedelta(seconds=10).total_seconds() * 1000


async def test_same_id_from_another_source_is_another_event(
    running_worker: WorkerProcess, worker_env: WorkerEnv, store: RedisTagStore
) -> None:
    """CloudEvents ids are unique per source only: an ERP price event and then a PIM
    battery event with the same id are both applied, so the old battery answer is never
    served once the PIM event is acknowledged."""
    await _cache(store, "iphone_15_pro", "battery_life", "battery")
    await _cache(store, "iphone_15_pro", "price", "price", "256GB")
    shared_id = f"evt-{time.time_ns()}"
    erp = new_event("iphone_15_pro", ["price.256GB"], 11, source="erp", event_id=shared_id)
    pim = new_event("iphone_15_pro", ["battery_life"], 12, source="pim", event_id=shared_id)
    with worker_env.publisher() as pub:
        pub.publish(erp)
        pub.publish(pim)
    audit = worker_env.audit()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        wanted = {("erp", shared_id), ("pim", shared_id)}
        if wanted <= audit.applied_identities():
            break
        await asyncio.sleep(0.1)
    rows = [r for r in audit.rows(500) if r["event_id"] == shared_id]
    assert sorted((r["event_source"], r["outcome"]) for r in rows) == [
        ("erp", "applied"),
        ("pim", "applied"),
    ]
    assert await _status(store, "iphone_15_pro", "battery") is LookupStatus.STALE
    assert await _status(store, "iphone_15_pro", "price") is LookupStatus.STALE


async def test_dead_letters_and_audit_name_the_key_by_digest_only(
    running_worker: WorkerProcess, worker_env: WorkerEnv
) -> None:
    personal_key = b"alice.smith@example.com"
    mismatched = new_event("iphone_15", ["weight"], 5, source="test")
    behind = new_event("iphone_15", ["colors"], 7, source="test")
    with worker_env.publisher() as pub:
        pub.publish_raw(personal_key, mismatched.to_bytes())
        pub.publish(behind)
    assert worker_env.wait_audited({behind.event_id})
    letters = [
        letter
        for letter in _dead_letters(worker_env, 50, timeout_s=5)
        if bytes(letter["value"]) == mismatched.to_bytes()  # type: ignore[arg-type]
    ]
    assert len(letters) == 1
    headers: dict[str, str] = letters[0]["headers"]  # type: ignore[assignment]
    assert headers["reason"] == "key_mismatch"
    digest = digest_of(personal_key)
    assert headers["key_digest"] == digest
    assert all("alice" not in v for v in headers.values())
    reasons = [str(r["reason"]) for r in worker_env.audit().rows(500) if r["reason"]]
    assert any(digest in r for r in reasons)
    assert not any("alice" in r for r in reasons)
