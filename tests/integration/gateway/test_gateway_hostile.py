"""Hostile input against a running gateway: bounded work, 4xx (never 5xx), slow clients
cut off. (The fuzz test in tests/integration/gateway_props searches the same space.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.inference.launcher import ManagedProcess
from tests.integration.gateway.conftest import GatewayFactory, RunningGateway
from tests.integration.gateway.helpers import KEY_A, MODEL, chat_body

pytestmark = pytest.mark.integration

LIMITS = {
    "max_body_bytes": 64 * 1024,
    "header_timeout_s": 0.5,
    "body_timeout_s": 0.5,
    "max_question_chars": 100,
    "max_keyed_chars": 2000,
}


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for index in range(depth):
        value = [value] if index % 2 else {"k": value}
    return value


async def test_a_body_over_the_limit_is_413_declared_or_chunked(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    big = json.dumps(chat_body("x" * 100_000)).encode()

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 8192):
            yield big[start : start + 8192]

    async with gateway.client() as client:
        declared = await client.post("/v1/chat/completions", content=big)
        chunked = await client.post("/v1/chat/completions", content=chunks())
    async with gateway.admin() as admin:
        admin_chunked = await admin.post("/admin/purge", content=chunks())
    for response in (declared, chunked):
        assert response.status_code == 413
        assert response.json()["error"]["message"] == "request body exceeds 65536 bytes"
    assert 400 <= admin_chunked.status_code < 500
    assert await gateway.metric("cachecoh_gateway_rejected_requests_total", reason="body_too_large")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (chat_body("q", tools=[{"type": "function", "function": nested(300)}]), "body"),
        ({"model": MODEL, "messages": [{"role": "user", "content": [nested(300)]}]}, "body"),
        (chat_body("q", metadata={"m": nested(260)}), "body"),
        (chat_body("q", response_format=nested(70)), "body"),
        ({"model": MODEL, "messages": [{"role": ["user"], "content": "q"}]}, "messages[0].role"),
        ({"model": MODEL, "messages": [{"role": {"a": 1}, "content": "q"}]}, "messages[0].role"),
        (chat_body("q", seed=2**64), "seed"),
        (chat_body("q", max_tokens=10**30), "max_tokens"),
        (chat_body("q", temperature=1e308), "temperature"),
        (chat_body("q", stream_options={"include_usage": True}), "body"),
        (chat_body("q", stream="yes"), "stream"),
    ],
)
async def test_malformed_requests_are_400_naming_the_field(
    gateway_factory: GatewayFactory, engine: ManagedProcess, body: Any, param: str
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    async with gateway.client() as client:
        response = await client.post("/v1/chat/completions", content=json.dumps(body))
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == param


@pytest.mark.parametrize(
    "raw",
    [
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
        b'{"model": "m", "messages": [{"role": "user", "content": "q"}], "x": 1e999}',
        b'{"model": "m", "messages": [{"role": "user", "content": "q"}], "x": '
        + b"9" * 5000
        + b"}",
        b"[" * 100_000,
    ],
)
async def test_odd_json_is_a_4xx(
    gateway_factory: GatewayFactory, engine: ManagedProcess, raw: bytes
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    async with gateway.client() as client:
        response = await client.post("/v1/chat/completions", content=raw)
    assert 400 <= response.status_code < 500, response.text


@pytest.mark.parametrize(
    "text",
    ["\u202eevil\u202c iPhone 15 电池", "\ufeff\u200b\u200d", "𝕚𝕡𝕙𝕠𝕟𝕖 🔋" * 3, "a\u0000b\u0007c"],
)
async def test_unusual_unicode_is_answered(
    gateway_factory: GatewayFactory, engine: ManagedProcess, text: str
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    async with gateway.client() as client:
        response = await client.post("/v1/chat/completions", json=chat_body(text))
    assert response.status_code in (200, 400), response.text


async def test_long_questions_skip_the_semantic_layer_and_long_requests_are_unkeyed(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    async with gateway.client() as client:
        long_question = await client.post(
            "/v1/chat/completions", json=chat_body("iPhone 15 电池能用多久 " + "a" * 200)
        )
        long_request = await client.post("/v1/chat/completions", json=chat_body("b" * 3000))
    assert long_question.headers["x-cache"] == "BYPASS; reason=question_too_long"
    assert long_request.headers["x-cache"] == "BYPASS; reason=request_too_long"
    labels = {"layer": "all", "reason": "question_too_long"}
    assert await gateway.metric("request_cache_bypass_reason_total", **labels) == 1


async def test_admin_bodies_are_strictly_typed(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    async with gateway.admin() as admin:
        responses = [
            await admin.put("/admin/kill-switches/semantic", json={"enabled": value})
            for value in ("no", "false", 0, 1, None, [], {"x": 1})
        ]
        extra = await admin.put("/admin/kill-switches/semantic", json={"enabled": True, "also": 1})
        tags = await admin.post("/admin/purge", json={"tags": [1]})
        switches = (await admin.get("/admin/kill-switches")).json()
    assert [r.status_code for r in responses] == [400] * 7
    assert (extra.status_code, tags.status_code) == (400, 400)
    assert switches["semantic"] is True  # nothing was coerced into a change


async def _closed_within(gateway: RunningGateway, send: bytes, seconds: float) -> bool:
    host, port = gateway.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        if send:
            writer.write(send)
            await writer.drain()
        data = await asyncio.wait_for(reader.read(), seconds)
        return data == b"" or data.startswith(b"HTTP/1.1 4")
    except TimeoutError:
        return False
    finally:
        writer.close()


async def test_idle_slow_header_and_slow_body_connections_are_closed(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    partial_headers = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
    partial_body = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
        + f"authorization: Bearer {KEY_A}\r\ncontent-length: 100\r\n\r\n".encode()
        + b'{"model":'
    )
    results = await asyncio.gather(
        _closed_within(gateway, b"", 5),
        _closed_within(gateway, partial_headers, 5),
        _closed_within(gateway, partial_body, 5),
    )
    assert results == [True, True, True]
    assert await gateway.metric("cachecoh_gateway_slow_connections_closed_total", stage="body")
    async with gateway.client() as client:  # and the gateway still answers
        assert (await client.get("/health")).status_code == 200


async def test_an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    # The keep-alive timeout is a deadline the sweep checks, not a timer per response.
    gateway = await gateway_factory(engine.url, **LIMITS, keep_alive_timeout_s=1)
    host, port = gateway.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        started = asyncio.get_running_loop().time()
        assert await asyncio.wait_for(reader.read(), 5) == b""
        assert asyncio.get_running_loop().time() - started >= 0.9
    finally:
        writer.close()


async def test_oversized_headers_are_refused(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **LIMITS)
    huge = b"GET /health HTTP/1.1\r\nhost: x\r\n" + b"x-pad: " + b"a" * 100_000 + b"\r\n\r\n"
    assert await _closed_within(gateway, huge, 5)


async def test_connections_beyond_the_limit_get_503_at_once(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, **{**LIMITS, "max_connections": 3})
    host, port = gateway.url.removeprefix("http://").split(":")
    idle = [await asyncio.open_connection(host, int(port)) for _ in range(3)]
    try:
        async with gateway.client() as client:
            response = await client.get("/health")
        assert response.status_code == 503
    finally:
        for _, writer in idle:
            writer.close()
    await asyncio.sleep(0.2)
    async with gateway.client() as client:
        assert (await client.get("/health")).status_code == 200
