"""Shared fixtures: real Redis, real Postgres, a real Kafka-protocol broker (Tansu).

Nothing here fakes infrastructure. ``CACHECOH_TEST_KAFKA_BOOTSTRAP`` (opt-in; CI leaves
it unset and runs Tansu) points the tests at a broker someone else runs, e.g. Apache
Kafka (docs/coherence.md, "Against Apache Kafka"): every test makes its own topics and
groups there and leaves them behind. Each test gets its own Redis key prefix and each
session its own Postgres schema, so parallel runs never see each other's data, and
nothing is flushed.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis
import sqlalchemy as sa

from services.adapters.embedded_broker import (
    Broker,
    EmbeddedBroker,
    ExternalBroker,
    wait_for_port,
)
from services.adapters.sql.engine import upgrade
from services.core.keys import KeySpace
from services.core.semantic.extractor import SemanticExtractor
from services.semantic.loading import SemanticData, build_extractor, load_semantic_data

REDIS_URL = os.environ.get("CACHECOH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "CACHECOH_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
KAFKA_BOOTSTRAP = os.environ.get("CACHECOH_TEST_KAFKA_BOOTSTRAP", "")


@pytest.fixture(scope="session")
def redis_url() -> str:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:  # a missing service is a failure, never a skip
        pytest.fail(f"Redis is required at {REDIS_URL}: {exc}")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def keyspace(redis_url: str) -> Iterator[KeySpace]:
    """A private key prefix; its keys are removed after the test."""
    space = KeySpace(prefix=f"cctest-{uuid.uuid4().hex[:12]}")
    yield space
    client = redis.Redis.from_url(redis_url)
    try:
        # Cleanup only (tests, not a hot path): drop everything under the prefix.
        batch = []
        for key in client.scan_iter(match=f"{space.prefix}:*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                client.unlink(*batch)
                batch.clear()
        if batch:
            client.unlink(*batch)
    finally:
        client.close()


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A URL of a fresh schema of its own in the local Postgres, dropped (only it) on exit."""
    schema = f"cctest_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(POSTGRES_URL)
    try:
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    except sa.exc.OperationalError as exc:
        pytest.fail(f"Postgres is required at {POSTGRES_URL}: {exc}")
    sep = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh schema in the local Postgres for this session, dropped at the end."""
    with postgres_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each test its own database: a SQLite file (the embedded default) or a fresh
    Postgres schema (the production path), migrated."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'cachecoh.db'}"
        upgrade(url)
        yield url
        return
    with postgres_schema() as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """One Tansu broker for the session, on a free port; or the external one, if set."""
    if KAFKA_BOOTSTRAP:
        host, _, port = KAFKA_BOOTSTRAP.split(",")[0].rpartition(":")
        try:
            wait_for_port(host, int(port), timeout_s=5)
        except TimeoutError as exc:  # a missing service is a failure, never a skip
            pytest.fail(f"CACHECOH_TEST_KAFKA_BOOTSTRAP={KAFKA_BOOTSTRAP}: {exc}")
        yield ExternalBroker(KAFKA_BOOTSTRAP)
        return
    log_file = tmp_path_factory.mktemp("broker") / "tansu.log"
    with EmbeddedBroker(log_file=log_file) as running:
        yield running


@pytest.fixture(scope="session")
def semantic_data() -> SemanticData:
    return load_semantic_data()


@pytest.fixture(scope="session")
def extractor(semantic_data: SemanticData) -> SemanticExtractor:
    """The shipped extractor, built once for the whole session (a build takes seconds):
    unit, semantic and gateway tests all read the same one."""
    return build_extractor(semantic_data)
