"""Integration fixtures: a real coherence worker (child process) on the session's Tansu,
Redis and Postgres, with its own topics, group, key prefix and database schema."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.adapters.embedded_broker import Broker
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.redis_tag_store import RedisTagStore
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.coherence.process import WorkerProcess
from services.core.keys import KeySpace
from services.harness.faults.rig import FAST_REJOIN

PARTITIONS = 3


@dataclass
class WorkerEnv:
    """Topics, group, keyspace and database of one worker deployment under test."""

    broker: Broker
    topic: str
    dlq_topic: str
    group: str
    keys: KeySpace
    redis_url: str
    database_url: str
    log_dir: Path

    def env(self, **overrides: str) -> dict[str, str]:
        base = {
            "CACHECOH_KAFKA_BOOTSTRAP": self.broker.bootstrap,
            "CACHECOH_TOPIC": self.topic,
            "CACHECOH_DLQ_TOPIC": self.dlq_topic,
            "CACHECOH_TOPIC_PARTITIONS": str(PARTITIONS),
            "CACHECOH_CONSUMER_GROUP": self.group,
            "CACHECOH_REDIS_URL": self.redis_url,
            "CACHECOH_REDIS_PREFIX": self.keys.prefix,
            "CACHECOH_DATABASE_URL": self.database_url,
            # A killed worker's partitions come back within seconds (as in the fault rig).
            **FAST_REJOIN,
            "CACHECOH_LOG_LEVEL": "INFO",
            "CACHECOH_SEED_SPEC_STORE": "true",
        }
        return {**base, **overrides}

    def worker(self, name: str = "worker", **overrides: str) -> WorkerProcess:
        return WorkerProcess(self.env(**overrides), log_file=self.log_dir / f"{name}.log")

    def publisher(self) -> SpecUpdatePublisher:
        return SpecUpdatePublisher(self.broker.bootstrap, topic=self.topic)

    def audit(self) -> AuditLog:
        return AuditLog(make_engine(self.database_url))

    def wait_audited(self, event_ids: set[str], timeout_s: float = 30.0) -> set[str]:
        """Wait until every event id has an audit row; returns the ids seen."""
        audit = self.audit()
        deadline = time.monotonic() + timeout_s
        seen: set[str] = set()
        while time.monotonic() < deadline:
            seen = audit.applied_event_ids() & event_ids
            if seen == event_ids:
                return seen
            time.sleep(0.1)
        return seen


def make_worker_env(broker: Broker, redis_url: str, database_url: str, log_dir: Path) -> WorkerEnv:
    suffix = uuid.uuid4().hex[:8]
    env = WorkerEnv(
        broker=broker,
        topic=f"spec-{suffix}",
        dlq_topic=f"spec-{suffix}.dlq",
        group=f"coherence-{suffix}",
        keys=KeySpace(f"cctest-{suffix}"),
        redis_url=redis_url,
        database_url=database_url,
        log_dir=log_dir,
    )
    ensure_topics(broker.bootstrap, [(env.topic, PARTITIONS), (env.dlq_topic, PARTITIONS)])
    upgrade(database_url)
    return env


@pytest.fixture(scope="session")
def worker_env(
    broker: Broker,
    redis_url: str,
    postgres_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> WorkerEnv:
    return make_worker_env(broker, redis_url, postgres_url, tmp_path_factory.mktemp("workers"))


@pytest.fixture(scope="session")
def running_worker(worker_env: WorkerEnv) -> Iterator[WorkerProcess]:
    """One worker for the session (a consumer group join costs seconds on Tansu)."""
    worker = worker_env.worker("session").start()
    try:
        worker.wait_ready()
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def store(worker_env: WorkerEnv, redis_client: aioredis.Redis) -> RedisTagStore:
    return RedisTagStore(redis_client, worker_env.keys)


@pytest.fixture(scope="session")
def fresh_env(
    broker: Broker,
    redis_url: str,
    postgres_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[], WorkerEnv]:
    """Separate topics/group/keyspace for tests that kill workers."""
    log_dir = tmp_path_factory.mktemp("fresh-workers")
    return lambda: make_worker_env(broker, redis_url, postgres_url, log_dir)
