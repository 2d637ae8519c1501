"""Coherence at the gateway: events invalidate both layers; a late fill is refused; one
upstream call per key; kill switches reach every replica within a second."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from services.adapters.redis_tag_store import RedisTagStore
from services.adapters.sql.spec_store import SpecStore
from services.core.keys import KeySpace
from services.core.mapping import MappingSet
from services.inference.launcher import ManagedProcess, start_router, wait_healthy
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import (
    chat_body,
    engine_requests,
    engine_running,
    publish_change,
)

pytestmark = pytest.mark.integration


async def test_a_battery_life_event_invalidates_both_layers(
    gateway_factory: GatewayFactory,
    engine: ManagedProcess,
    keyspace: KeySpace,
    redis_client: aioredis.Redis,
    spec_store: SpecStore,
    mappings: MappingSet,
) -> None:
    gateway = await gateway_factory(engine.url)
    store = RedisTagStore(redis_client, keyspace)
    question = chat_body("iPhone 15 电池能用多久")
    paraphrase = chat_body("苹果15充一次电能用几天")
    unrelated = chat_body("iPhone 15 重量")
    async with gateway.client() as client:
        for body in (question, unrelated):
            assert (await client.post("/v1/chat/completions", json=body)).headers[
                "x-cache"
            ] == "MISS"
        hit = await client.post("/v1/chat/completions", json=question)
        assert hit.headers["x-cache"] == "HIT; layer=request"
        old_text = hit.json()["choices"][0]["message"]["content"]

        facts = spec_store.get("iphone_15")
        assert facts is not None
        battery = dict(facts.specs["battery_life"])
        values = {k: dict(v) for k, v in battery["values"].items()}
        values["video_playback"]["value"] = int(values["video_playback"]["value"]) + 1
        event = await publish_change(
            store,
            spec_store,
            mappings,
            "iphone_15",
            {"battery_life": {"by": battery["by"], "values": values}},
        )

        after = await client.post("/v1/chat/completions", json=question)
        assert after.headers["x-cache"] == "STALE; layer=request"
        new_text = after.json()["choices"][0]["message"]["content"]
        assert f"spec_version {event.spec_version}" in new_text and new_text != old_text
        # The semantic entry went too, and was refilled by the miss above at the new version.
        sem = await client.post("/v1/chat/completions", json=paraphrase)
        assert sem.headers["x-cache"] == "HIT; layer=semantic"
        assert (
            f"spec_version {event.spec_version}" in sem.json()["choices"][0]["message"]["content"]
        )
        # An answer about another slot of the same product is untouched.
        other = await client.post("/v1/chat/completions", json=unrelated)
        assert other.headers["x-cache"] == "HIT; layer=request"


async def test_late_fill_is_returned_but_never_cached(
    gateway_factory: GatewayFactory,
    slow_engine: ManagedProcess,
    keyspace: KeySpace,
    redis_client: aioredis.Redis,
    spec_store: SpecStore,
    mappings: MappingSet,
) -> None:
    gateway = await gateway_factory(slow_engine.url)
    store = RedisTagStore(redis_client, keyspace)
    question = chat_body("Tesla Model Y 重量多少")
    async with gateway.client() as client:
        slow = asyncio.create_task(client.post("/v1/chat/completions", json=question))
        # Wait until the gateway has snapshotted and the upstream is generating.
        deadline = time.monotonic() + 10
        while await engine_running(slow_engine) < 1:
            assert time.monotonic() < deadline, "the slow request never reached the engine"
            await asyncio.sleep(0.01)
        facts = spec_store.get("tesla_model_y")
        assert facts is not None
        weight = dict(facts.specs["weight"])
        event = await publish_change(
            store,
            spec_store,
            mappings,
            "tesla_model_y",
            {"weight": {**weight, "value": float(weight["value"]) + 1}},
        )
        answered = await slow
        assert answered.status_code == 200
        assert answered.headers["x-cache"] == "MISS"
        late_text = answered.json()["choices"][0]["message"]["content"]
        assert f"spec_version {event.spec_version - 1}" in late_text

        assert await gateway.metric("cachecoh_gateway_fill_refused_total", layer="request") == 1
        assert await gateway.metric("cachecoh_gateway_fill_refused_total", layer="semantic") == 1
        follow_up = await client.post("/v1/chat/completions", json=question)
    assert follow_up.headers["x-cache"] == "MISS"
    assert (
        f"spec_version {event.spec_version}" in follow_up.json()["choices"][0]["message"]["content"]
    )


async def test_hundred_concurrent_identical_misses_make_one_upstream_call(
    gateway_factory: GatewayFactory, slow_engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(slow_engine.url)
    body = chat_body("AirPods Pro 2 续航多久")
    before = await engine_requests(slow_engine)
    async with gateway.client(limits=httpx.Limits(max_connections=100)) as client:
        responses = await asyncio.gather(
            *(client.post("/v1/chat/completions", json=body) for _ in range(100))
        )
    assert [r.status_code for r in responses] == [200] * 100
    states = sorted(r.headers["x-cache"] for r in responses)
    assert states.count("MISS") == 1
    assert all(s.startswith("HIT") for s in states if s != "MISS")
    assert len({r.json()["choices"][0]["message"]["content"] for r in responses}) == 1
    assert await engine_requests(slow_engine) - before == 1
    assert await gateway.metric("cachecoh_gateway_single_flight_waits_total", outcome="filled") >= 1


async def test_replicas_share_one_upstream_call_through_the_redis_lease(
    gateway_factory: GatewayFactory, slow_engine: ManagedProcess
) -> None:
    replicas = [await gateway_factory(slow_engine.url) for _ in range(2)]
    body = chat_body("华为FreeBuds Pro 3 防水等级")
    before = await engine_requests(slow_engine)
    clients = [replica.client() for replica in replicas]
    try:
        responses = await asyncio.gather(
            *(clients[i % 2].post("/v1/chat/completions", json=body) for i in range(20))
        )
    finally:
        for client in clients:
            await client.aclose()
    assert [r.status_code for r in responses] == [200] * 20
    assert sorted(r.headers["x-cache"] for r in responses).count("MISS") == 1
    assert await engine_requests(slow_engine) - before == 1


async def test_kill_switch_reaches_another_replica_within_a_second(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    replica_a = await gateway_factory(engine.url)
    replica_b = await gateway_factory(engine.url)
    body = chat_body("Apple Watch Series 9 防水吗")
    async with replica_a.client() as a, replica_b.client() as b, replica_a.admin() as admin:
        await a.post("/v1/chat/completions", json=body)
        assert (await b.post("/v1/chat/completions", json=body)).headers["x-cache"] == (
            "HIT; layer=request"
        )
        switched = await admin.put("/admin/kill-switches/request", json={"enabled": False})
        assert switched.json() == {"request": False, "semantic": True, "prefix_routing": True}
        flipped_at = time.monotonic()
        while True:
            state = (await b.post("/v1/chat/completions", json=body)).headers["x-cache"]
            if state == "HIT; layer=semantic":
                break
            assert state == "HIT; layer=request"
            assert time.monotonic() - flipped_at < 1.0, "replica B still uses the request layer"
            await asyncio.sleep(0.05)
        assert await replica_b.metric("cachecoh_gateway_kill_switch_enabled", layer="request") == 0
        assert (await admin.get("/admin/kill-switches")).json()["request"] is False
        await admin.put("/admin/kill-switches/semantic", json={"enabled": False})
        await asyncio.sleep(1.0)
        both_off = await b.post("/v1/chat/completions", json=body)
        assert both_off.headers["x-cache"] == "BYPASS; reason=kill_switch"
        unknown = await admin.put("/admin/kill-switches/everything", json={"enabled": False})
        assert unknown.status_code == 400


async def test_prefix_routing_switch_makes_the_router_route_by_load(
    gateway_factory: GatewayFactory,
    engine: ManagedProcess,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    router = start_router(
        "router",
        [engine.url],
        {"policy": "prefix_affinity"},
        log_dir=tmp_path_factory.mktemp("router"),
    )
    try:
        wait_healthy([router])
        gateway = await gateway_factory(router.url)
        async with gateway.client() as client, gateway.admin() as admin:
            await client.post("/v1/chat/completions", json=chat_body("iPhone 16 屏幕多大"))
            assert await _routed(router, "prefix_owner") == 1
            await admin.put("/admin/kill-switches/prefix_routing", json={"enabled": False})
            answered = await client.post("/v1/chat/completions", json=chat_body("iPhone 16 重量"))
        assert answered.headers["x-cache"] == "MISS"
        assert await _routed(router, "no_prefix") == 1
        assert await _routed(router, "prefix_owner") == 1
    finally:
        router.stop()


async def _routed(router: ManagedProcess, reason: str) -> float:
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{router.url}/metrics")).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "cachecoh_router_requests_total" and sample.labels.get("reason") == reason
    )
