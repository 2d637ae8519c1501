"""A real gateway (uvicorn, in this process) on real Redis and Postgres, in front of real
offline-engine processes. Each test gets its own Redis key prefix."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from prometheus_client.parser import text_string_to_metric_families

from services.adapters.contract_files import load_mappings
from services.adapters.embedded_broker import free_port
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.core.keys import KeySpace
from services.core.mapping import MappingSet
from services.core.redaction import Redactor
from services.core.semantic.extractor import SemanticExtractor
from services.gateway.app import ChatCompletionsApp
from services.gateway.bootstrap import create_app, load_redactor, seed_spec_store, server_config
from services.gateway.settings import GatewaySettings
from services.inference.launcher import ManagedProcess, start_engine, wait_healthy
from services.paths import DEMO_DATA_DIR, MAPPINGS_DIR
from tests.integration.gateway.echo_upstream import EchoUpstream
from tests.integration.gateway.helpers import ADMIN_TOKEN, KEY_A, KEY_B


def _running_engine(
    tmp_path_factory: pytest.TempPathFactory, name: str, seconds_per_output_token: float
) -> Iterator[ManagedProcess]:
    process = start_engine(
        name,
        {"seconds_per_output_token": seconds_per_output_token},
        log_dir=tmp_path_factory.mktemp(name),
    )
    try:
        wait_healthy([process])
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedProcess]:
    """A fast offline engine (a few ms per answer)."""
    yield from _running_engine(tmp_path_factory, "engine-fast", 0.0001)


@pytest.fixture(scope="session")
def slow_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedProcess]:
    """An offline engine that takes about a second per answer (races, single flight)."""
    yield from _running_engine(tmp_path_factory, "engine-slow", 0.03)


@pytest.fixture(scope="session")
def spec_store(postgres_url: str) -> SpecStore:
    upgrade(postgres_url)
    store = SpecStore(make_engine(postgres_url), topic="product-spec-updated")
    seed_spec_store(store, DEMO_DATA_DIR)
    return store


@pytest.fixture(scope="session")
def redactor() -> Redactor:
    return load_redactor()


@pytest.fixture(scope="session")
def mappings() -> MappingSet:
    vocabulary = json.loads((DEMO_DATA_DIR / "attributes.json").read_text("utf-8"))
    return load_mappings(
        MAPPINGS_DIR,
        known_slots=set(vocabulary["attributes"]),
        known_intents={"query_spec", "query_policy"},
    )


@dataclass
class RunningGateway:
    url: str
    app: ChatCompletionsApp
    settings: GatewaySettings

    def client(self, key: str = KEY_A, **kwargs: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.url, headers={"authorization": f"Bearer {key}"}, timeout=30, **kwargs
        )

    def admin(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.url, headers={"authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10
        )

    async def metric(self, name: str, **labels: str) -> float:
        """A sample of the gateway's /metrics (0 when absent)."""
        async with httpx.AsyncClient(base_url=self.url) as client:
            text = (await client.get("/metrics")).text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == name and all(
                    sample.labels.get(k) == v for k, v in labels.items()
                ):
                    return float(sample.value)
        return 0.0


GatewayFactory = Callable[..., Awaitable[RunningGateway]]


@pytest.fixture
async def gateway_factory(
    keyspace: KeySpace,
    redis_url: str,
    postgres_url: str,
    spec_store: SpecStore,
    extractor: SemanticExtractor,
    redactor: Redactor,
) -> AsyncIterator[GatewayFactory]:
    """Start gateways (uvicorn tasks on this loop) sharing the test's key prefix."""
    servers: list[tuple[uvicorn.Server, asyncio.Task[None]]] = []

    async def start(upstream: str, **overrides: Any) -> RunningGateway:
        port = free_port()
        settings = GatewaySettings(
            **{
                "host": "127.0.0.1",
                "port": port,
                "upstream_url": upstream,
                "api_keys": json.dumps({KEY_A: "tenant-a", KEY_B: "tenant-b"}),
                "admin_token": ADMIN_TOKEN,
                "request_key_secret": "request-key-secret-for-tests",
                "cache_salt_key": "cache-salt-key-for-tests",
                "redis_url": redis_url,
                "redis_prefix": keyspace.prefix,
                "database_url": postgres_url,
                "upstream_timeout_s": 10.0,
                "lease_wait_s": 10.0,
                # These tests bump generations themselves; no worker sets the replica lease.
                "replica_guard": False,
                **overrides,
            }
        )
        app = create_app(settings, extractor=extractor, redactor=redactor, spec_store=spec_store)
        server = uvicorn.Server(server_config(app, settings, log_level="warning", lifespan="on"))
        task = asyncio.create_task(server.serve())
        servers.append((server, task))
        for _ in range(200):
            if server.started:
                break
            if task.done():
                task.result()
            await asyncio.sleep(0.02)
        return RunningGateway(f"http://127.0.0.1:{port}", app, settings)

    yield start
    for server, _ in servers:
        server.should_exit = True
    for _, task in servers:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 10)


@dataclass
class RunningEcho:
    url: str
    upstream: EchoUpstream


@pytest.fixture
async def echo_upstream() -> AsyncIterator[RunningEcho]:
    """An upstream that answers with the prompt it received (echo_upstream.py)."""
    echo = EchoUpstream()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(echo.app(), host="127.0.0.1", port=port, log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.02)
    yield RunningEcho(f"http://127.0.0.1:{port}", echo)
    server.should_exit = True
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(task, 10)
