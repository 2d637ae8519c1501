"""kv_aware routing against real engine processes publishing KV events over ZMQ (ipc)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.inference.launcher import ManagedProcess, start_engine, wait_healthy
from tests.integration.inference.conftest import FAST, StartRouter, replicas_state, served_by

pytestmark = pytest.mark.integration

ChatBody = Callable[..., dict[str, Any]]


def _metric(client: httpx.Client, router: ManagedProcess, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    total = 0.0
    for family in text_string_to_metric_families(client.get(f"{router.url}/metrics").text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


@pytest.fixture()
def kv_engines(tmp_path: Path) -> Any:
    started: list[ManagedProcess] = []

    def start(count: int) -> tuple[list[ManagedProcess], list[str], list[dict[str, Any]]]:
        endpoints = [f"ipc://{tmp_path}/engine-{i}.kv" for i in range(count)]
        settings = [
            {**FAST, "kv_events_endpoint": endpoint, "kv_events_topic": "kv"}
            for endpoint in endpoints
        ]
        engines = [
            start_engine(f"kv-engine-{i}", settings[i], log_dir=tmp_path) for i in range(count)
        ]
        started.extend(engines)
        wait_healthy(engines)
        return engines, endpoints, settings

    yield start, started
    for process in started:
        process.stop()


def _wait_indexed(client: httpx.Client, router: ManagedProcess, replica: str) -> None:
    deadline = time.monotonic() + 10
    while _metric(client, router, "cachecoh_router_kv_index_blocks", replica=replica) == 0:
        assert time.monotonic() < deadline, "the router never indexed the replica's blocks"
        time.sleep(0.05)


def test_requests_follow_the_replica_holding_their_prefix_and_forget_a_restart(
    kv_engines: Any, start_router_for: StartRouter, chat_body: ChatBody, tmp_path: Path
) -> None:
    start, started = kv_engines
    engines, endpoints, settings = start(3)
    router = start_router_for(
        engines, policy="kv_aware", kv_event_endpoints=endpoints, kv_events_topic="kv"
    )
    body = chat_body("t-kv", "battery_life", "iphone_15", "iPhone 15 看视频能用多久")
    with httpx.Client(timeout=10) as client:
        first = client.post(f"{router.url}/v1/chat/completions", json=body)
        assert first.status_code == 200
        holder = served_by(first)
        _wait_indexed(client, router, holder)
        for _ in range(4):
            again = client.post(f"{router.url}/v1/chat/completions", json=body)
            assert served_by(again) == holder
            assert again.headers["x-cachecoh-route-reason"] == "kv_prefix"
            assert again.json()["usage"]["prompt_tokens_details"]["cached_tokens"] > 0
        # Restart the holder: the router drops what it said the replica held.
        index = [e.url.split("//")[1] for e in engines].index(holder)
        port = int(holder.split(":")[1])
        engines[index].kill()
        engines[index] = start_engine(
            f"kv-engine-{index}-again", settings[index], log_dir=tmp_path, port=port
        )
        started.append(engines[index])  # stopped by the fixture too
        wait_healthy([engines[index]])
        deadline = time.monotonic() + 10
        while _metric(client, router, "cachecoh_router_kv_index_blocks", replica=holder) > 0:
            assert time.monotonic() < deadline, "a restarted replica's blocks stayed indexed"
            time.sleep(0.05)
        forgotten = _metric(
            client, router, "cachecoh_router_kv_index_forgotten_total", replica=holder
        )
        assert forgotten >= 1
        deadline = time.monotonic() + 10
        while not replicas_state(client, router)[holder]["healthy"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        after = client.post(f"{router.url}/v1/chat/completions", json=body)
        assert after.status_code == 200
        # No replica holds the prefix any more: consistent hashing picks (cold start).
        assert after.headers["x-cachecoh-route-reason"] in ("prefix_owner", "owner_overloaded")


def test_kv_aware_without_endpoints_is_refused_at_start() -> None:
    from pydantic import ValidationError

    from services.inference.router.settings import RouterSettings

    with pytest.raises(ValidationError, match="kv_event_endpoints"):
        RouterSettings(upstreams=["http://a:1"], policy="kv_aware")
    with pytest.raises(ValidationError, match="one per upstream"):
        RouterSettings(upstreams=["http://a:1", "http://b:1"], kv_event_endpoints="tcp://a:5557")
    with pytest.raises(ValidationError, match="not a ZMQ address"):
        RouterSettings(upstreams=["http://a:1"], kv_event_endpoints="a:5557")
