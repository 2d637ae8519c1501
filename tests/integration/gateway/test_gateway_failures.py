"""Personal data, and failure behaviour: Redis down, upstream slow, stampedes."""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest
import redis
import redis.asyncio as aioredis

from services.adapters.embedded_broker import free_port
from services.adapters.sql.spec_store import SpecStore
from services.core.keys import KeySpace
from services.inference.launcher import ManagedProcess
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import chat_body

pytestmark = pytest.mark.integration

PERSONAL = {
    "13812345678": "iPhone 15 电池能用多久？我的手机号13812345678",
    "11010519491231002X": "身份证11010519491231002X 能开发票吗",
    "zhangsan@example.com": "iPhone 15 多重，发到zhangsan@example.com",
    "4111 1111 1111 1111": "用卡 4111 1111 1111 1111 买 iPhone 15 多少钱",
    "王小明": "我是王小明，iPhone 15 屏幕多大",
    "建国路88号": "送到建国路88号，iPhone 15 重量",
}


async def _all_redis_bytes(client: aioredis.Redis, prefix: str) -> bytes:
    dump = bytearray()
    async for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        dump += key + b"\n"
        kind = await client.type(key)
        if kind == b"string":
            dump += (await client.get(key)) or b""
        elif kind == b"hash":
            for field, value in (await client.hgetall(key)).items():
                dump += field + b"=" + value + b"\n"
    return bytes(dump)


async def test_personal_data_never_reaches_redis_or_logs(
    gateway_factory: GatewayFactory,
    engine: ManagedProcess,
    keyspace: KeySpace,
    redis_client: aioredis.Redis,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        for text in PERSONAL.values():
            for stream in (False, True):
                response = await client.post(
                    "/v1/chat/completions", json=chat_body(text, stream=stream)
                )
                assert response.status_code == 200
                # redacted, not bypassed: the placeholders are keyed, the values dropped
                assert "personal_data" not in response.headers["x-cache"]
        # Ordinary traffic in the same run, so the scan below has entries to look at.
        assert (
            await client.post("/v1/chat/completions", json=chat_body("iPhone 15 重量"))
        ).status_code == 200
    dump = await _all_redis_bytes(redis_client, keyspace.prefix)
    assert b":e:{iphone_15}:req:" in dump
    for secret in PERSONAL:
        for form in {secret, secret.replace(" ", "")}:
            assert form.encode() not in dump
            assert form not in caplog.text
    assert await gateway.metric("cachecoh_gateway_pii_redactions_total", kind="cn_mobile") == 2
    assert await gateway.metric("cachecoh_gateway_pii_redactions_total", kind="person") == 2


async def test_an_answer_carrying_personal_data_is_not_stored(
    gateway_factory: GatewayFactory, engine: ManagedProcess, spec_store: SpecStore
) -> None:
    facts = spec_store.get("huawei_watch_gt_4")
    assert facts is not None
    warranty = dict(facts.specs.get("warranty") or {"value": 1, "unit": "year"})
    spec_store.update(
        "huawei_watch_gt_4",
        {"warranty": {**warranty, "note": "claims: call 13912345678 or mail li.lei@example.com"}},
    )
    gateway = await gateway_factory(engine.url)
    body = chat_body("华为Watch GT 4 保修多久")
    async with gateway.client() as client:
        first = await client.post("/v1/chat/completions", json=body)
        second = await client.post("/v1/chat/completions", json=body)
    assert "13912345678" in first.json()["choices"][0]["message"]["content"]
    assert (first.headers["x-cache"], second.headers["x-cache"]) == ("MISS", "MISS")
    assert (
        await gateway.metric(
            "cachecoh_gateway_fill_skipped_total", reason="personal_data_in_answer"
        )
        == 2
    )


@pytest.fixture
def private_redis(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of our own on a free port: this test stops it, never the shared one."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is required for the fault test")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "private redis-server did not start"
            time.sleep(0.05)
    yield url, process
    if process.poll() is None:
        process.terminate()
        process.wait(timeout=10)


async def test_requests_are_answered_when_redis_stops(
    gateway_factory: GatewayFactory,
    engine: ManagedProcess,
    private_redis: tuple[str, subprocess.Popen[bytes]],
) -> None:
    url, process = private_redis
    gateway = await gateway_factory(engine.url, redis_url=url)
    body = chat_body("Samsung Galaxy S24 屏幕多大")
    async with gateway.client() as client:
        assert (await client.post("/v1/chat/completions", json=body)).headers["x-cache"] == "MISS"
        hit = await client.post("/v1/chat/completions", json=body)
        assert hit.headers["x-cache"] == "HIT; layer=request"
        process.terminate()
        process.wait(timeout=10)
        for stream in (False, True, False):
            down = await client.post(
                "/v1/chat/completions",
                json=chat_body("Samsung Galaxy S24 屏幕多大", stream=stream),
            )
            assert down.status_code == 200
            assert down.headers["x-cache"] == "BYPASS; reason=store_unavailable"
        # Still the grounded answer (facts from the spec store), just not cached.
        assert (
            down.json()["choices"][0]["message"]["content"]
            == hit.json()["choices"][0]["message"]["content"]
        )
        health = await client.get("/health")
    assert health.json()["redis"] == "unavailable"
    # The first failure starts a back-off: the next requests do not wait for Redis at all.
    assert (
        await gateway.metric("cachecoh_gateway_store_errors_total", operation="request_lookup") == 1
    )
    assert (
        await gateway.metric(
            "request_cache_bypass_reason_total", layer="all", reason="store_unavailable"
        )
        == 3
    )


async def test_upstream_timeout_is_a_clear_504(
    gateway_factory: GatewayFactory, slow_engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(slow_engine.url, upstream_timeout_s=0.2)
    async with gateway.client() as client:
        response = await client.post("/v1/chat/completions", json=chat_body("iPhone 16 Pro 重量"))
    assert response.status_code == 504
    error = response.json()["error"]
    assert error["type"] == "upstream_timeout"
    assert "did not answer within 0.2 s" in error["message"]


async def test_fill_breaker_answers_the_fallback_with_503(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(
        engine.url, breaker_misses_per_minute=2, fallback_message="Busy, back soon."
    )
    body = chat_body("ThinkPad X1 Carbon 重量")
    purge = {"tags": ["thinkpad_x1_carbon/p"]}
    async with gateway.client() as client, gateway.admin() as admin:
        statuses = [(await client.post("/v1/chat/completions", json=body)).status_code]
        # Hits are never limited.
        hit = await client.post("/v1/chat/completions", json=body)
        for _ in range(2):  # each purge makes the next request a miss of the same key
            await admin.post("/admin/purge", json=purge)
            response = await client.post("/v1/chat/completions", json=body)
            statuses.append(response.status_code)
    assert statuses == [200, 200, 503]
    assert response.json()["error"]["message"] == "Busy, back soon."
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert hit.headers["x-cache"] == "HIT; layer=request"
    assert await gateway.metric("cachecoh_gateway_fill_breaker_trips_total") == 1


async def test_token_bucket_limits_upstream_calls_not_hits(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, bucket_capacity=1, bucket_refill_per_s=0.1)
    body = chat_body("BYD Han 续航多少公里")
    async with gateway.client() as client, gateway.admin() as admin:
        first = await client.post("/v1/chat/completions", json=body)
        hits = await asyncio.gather(
            *(client.post("/v1/chat/completions", json=body) for _ in range(20))
        )
        await admin.post("/admin/purge", json={"tags": ["byd_han/p"]})
        limited = await client.post("/v1/chat/completions", json=body)
    assert first.status_code == 200
    assert limited.status_code == 429
    assert int(limited.headers["retry-after"]) >= 1
    assert {h.headers["x-cache"] for h in hits} == {"HIT; layer=request"}
    assert await gateway.metric("cachecoh_gateway_token_bucket_rejections_total") == 1


async def test_unreachable_upstream_is_a_502(
    gateway_factory: GatewayFactory,
) -> None:
    gateway = await gateway_factory(f"http://127.0.0.1:{free_port()}")
    async with gateway.client() as client:
        response = await client.post("/v1/chat/completions", json=chat_body("iPhone 15 重量"))
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_error"
    async with httpx.AsyncClient(base_url=gateway.url) as anonymous:
        assert (await anonymous.get("/health")).status_code == 200
