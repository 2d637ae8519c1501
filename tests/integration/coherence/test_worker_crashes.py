"""At-least-once across crashes: SIGKILL mid-stream, and no commit past an unapplied event."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
import sqlalchemy as sa
from kafka import KafkaAdminClient
from sqlalchemy.engine import make_url

from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.schema import AuditRow
from services.adapters.sql.spec_store import SpecStore
from services.core.events import ProductSpecUpdated, new_event
from services.paths import DEMO_DATA_DIR
from tests.integration.coherence.conftest import WorkerEnv

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
def spec_store_seeded(postgres_url: str) -> None:
    """The worker's spec store knows the demo catalog (strict mode asks it)."""
    upgrade(postgres_url)
    store = SpecStore(make_engine(postgres_url), topic="unused")
    store.seed(load_demo_catalog(DEMO_DATA_DIR))


def _events(n: int, products: int = 12) -> list[ProductSpecUpdated]:
    return [
        new_event(f"crash-p{i % products}", ["weight"], 2 + i // products, source="test")
        for i in range(n)
    ]


def test_sigkill_mid_stream_loses_no_event(fresh_env: Callable[[], WorkerEnv]) -> None:
    env = fresh_env()
    first = env.worker("kill-a").start()
    first.wait_ready()
    events = _events(400)
    published = threading.Event()

    def publish_steadily() -> None:
        with env.publisher() as pub:
            for event in events:
                pub.publish(event)
                time.sleep(0.004)
        published.set()

    thread = threading.Thread(target=publish_steadily)
    thread.start()
    time.sleep(0.6)  # some events applied, some in flight, some not yet published
    first.kill()
    second = env.worker("kill-b").start()
    try:
        second.wait_ready()
        thread.join(timeout=60)
        assert published.is_set()
        ids = {e.event_id for e in events}
        assert env.wait_audited(ids, timeout_s=60) == ids
        # Redis saw every event exactly once per id: each product's weight generation
        # moved once per distinct event (redeliveries are deduped by event id).
        client = redis.Redis.from_url(env.redis_url)
        try:
            per_product: dict[str, int] = {}
            for event in events:
                per_product[event.product_id] = per_product.get(event.product_id, 0) + 1
            for product, count in per_product.items():
                gens = client.hgetall(env.keys.generations(product))
                assert int(gens[b"_spec_version"]) == max(
                    e.spec_version for e in events if e.product_id == product
                )
                assert b"s:weight" in gens and count > 0
        finally:
            client.close()
    finally:
        second.stop()


def test_a_crash_never_commits_past_an_unapplied_event(
    fresh_env: Callable[[], WorkerEnv], tmp_path: Path
) -> None:
    """faust's automatic ack runs in a ``finally`` (it would ack a cancelled event);
    with manual acks the committed offset stays at the first unapplied event."""
    env = fresh_env()
    with RedisServerProcess() as private_redis:
        worker = env.worker("commit-a", CACHECOH_REDIS_URL=private_redis.url).start()
        worker.wait_ready()
        applied = new_event("commit-p", ["weight"], 2, source="test")
        blocked = [new_event("commit-p", ["weight"], 3 + i, source="test") for i in range(5)]
        with env.publisher() as pub:
            first = pub.publish(applied)
            assert env.wait_audited({applied.event_id}) == {applied.event_id}
            private_redis.pause()  # Redis stalls: the next bump cannot be acknowledged
            offsets = [pub.publish(e) for e in blocked]
        time.sleep(3)  # the worker has fetched the events and is retrying the bump
        worker.stop()  # graceful: faust commits what was acked, and only that
        committed = _committed_offsets(env)
        assert committed.get(first.partition, 0) <= offsets[0].offset
        assert env.audit().applied_event_ids() & {e.event_id for e in blocked} == set()

        private_redis.resume()
        restarted = env.worker("commit-b", CACHECOH_REDIS_URL=private_redis.url).start()
        try:
            restarted.wait_ready()
            ids = {e.event_id for e in blocked}
            assert env.wait_audited(ids, timeout_s=60) == ids
        finally:
            restarted.stop()


def test_strict_mode_dead_letters_unknown_products(
    fresh_env: Callable[[], WorkerEnv], spec_store_seeded: None
) -> None:
    env = fresh_env()
    worker = env.worker("strict", CACHECOH_STRICT_PRODUCTS="true").start()
    try:
        worker.wait_ready()
        unknown = new_event("pixel_9", ["battery_life"], 2, source="test")
        known = new_event("iphone_15", ["battery_life"], 2, source="test")
        with env.publisher() as pub:
            pub.publish(unknown)
            pub.publish(known)
        assert env.wait_audited({known.event_id}) == {known.event_id}
        outcomes = {r["event_id"]: (r["outcome"], r["reason"]) for r in env.audit().rows(500)}
        dead = [o for o in outcomes.values() if o[0] == "dead_lettered" and o[1]]
        assert any(reason.startswith("unknown_product") for _, reason in dead)
        assert unknown.event_id not in env.audit().applied_event_ids()
    finally:
        worker.stop()


def _wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@contextlib.contextmanager
def _audit_writes_blocked(url: str) -> Iterator[None]:
    """No other writer commits an audit row until the block exits: SQLite's write lock,
    Postgres' EXCLUSIVE lock on the audit table (readers still read)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database
        lock = sqlite3.connect(parsed.database, isolation_level=None, timeout=30)
        try:
            lock.execute("BEGIN IMMEDIATE")
            yield
        finally:
            lock.rollback()
            lock.close()
        return
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f"LOCK TABLE {AuditRow.__tablename__} IN EXCLUSIVE MODE"))
            try:
                yield
            finally:
                conn.rollback()
    finally:
        engine.dispose()


def test_no_commit_past_an_event_whose_audit_row_is_not_committed(
    fresh_env: Callable[[], WorkerEnv], fresh_database_url: str
) -> None:
    """The consumer runs on the app's loop; acks stay manual: a record whose bump Redis
    acknowledged but whose audit row cannot commit (the database is locked) is not acked,
    so no commit passes it; a restarted worker writes its row. On SQLite (the embedded
    default) and on Postgres (production)."""
    env = fresh_env()
    url = fresh_database_url
    audit = AuditLog(make_engine(url))
    worker = env.worker("audit-a", CACHECOH_DATABASE_URL=url).start()
    worker.wait_ready()
    applied = new_event("audit-p", ["weight"], 2, source="test")
    blocked = [new_event("audit-p", ["weight"], 3 + i, source="test") for i in range(5)]
    generations = redis.Redis.from_url(env.redis_url)
    writes_blocked = contextlib.ExitStack()
    try:
        with env.publisher() as pub:
            first = pub.publish(applied)
            assert _wait_for(lambda: applied.event_id in audit.applied_event_ids(), 30)
            writes_blocked.enter_context(_audit_writes_blocked(url))
            offsets = [pub.publish(e) for e in blocked]
        key = env.keys.generations("audit-p")
        # every bump is applied in Redis, none of the rows can be written
        assert _wait_for(lambda: generations.hget(key, "_spec_version") == b"7", 30)
        # Graceful: faust commits what was acked (within a second); the writer's thread
        # stays blocked in its write, so the process is killed after the timeout.
        worker.stop(timeout_s=8)
    finally:
        writes_blocked.close()
        generations.close()
    committed = _committed_offsets(env)
    assert committed.get(first.partition, 0) <= offsets[0].offset
    ids = {e.event_id for e in blocked}
    assert audit.applied_event_ids() & ids == set()
    restarted = env.worker("audit-b", CACHECOH_DATABASE_URL=url).start()
    try:
        restarted.wait_ready()
        assert _wait_for(lambda: ids <= audit.applied_event_ids(), 60)
    finally:
        restarted.stop()


def _committed_offsets(env: WorkerEnv) -> dict[int, int]:
    """The worker group's committed offset per partition, as the broker has it."""
    admin = KafkaAdminClient(bootstrap_servers=env.broker.bootstrap)
    try:
        return {
            tp.partition: meta.offset
            for tp, meta in admin.list_group_offsets(env.group)[env.group].items()
        }
    finally:
        admin.close()
