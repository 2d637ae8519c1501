"""The gateway over HTTP: the openai client, key normalisation, tenants, controls, admin."""

from __future__ import annotations

import asyncio
import json

import httpx
import openai
import pytest

from services.inference.launcher import ManagedProcess
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import KEY_A, KEY_B, MODEL, chat_body

pytestmark = pytest.mark.integration


async def test_openai_client_round_trip_with_streaming(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    client = openai.AsyncOpenAI(base_url=f"{gateway.url}/v1", api_key=KEY_A, max_retries=0)
    messages = [{"role": "user", "content": "iPhone 15 电池能用多久"}]
    first = await client.chat.completions.with_raw_response.create(
        model=MODEL,
        messages=messages,
        temperature=0,  # type: ignore[arg-type]
    )
    second = await client.chat.completions.with_raw_response.create(
        model=MODEL,
        messages=messages,
        temperature=0,  # type: ignore[arg-type]
    )
    assert first.headers["x-cache"] == "MISS"
    assert second.headers["x-cache"] == "HIT; layer=request"
    answer = first.parse().choices[0].message.content
    assert answer and "iPhone 15" in answer and "spec_version" in answer
    assert second.parse().choices[0].message.content == answer
    assert second.headers["x-cache-key"] == first.headers["x-cache-key"]
    assert second.headers["etag"] == first.headers["etag"]
    assert "iphone_15/s:battery_life" in second.headers["surrogate-key"].split()
    assert int(second.headers["age"]) >= 0

    # Streaming shares the key: a stream of a cached answer is a replay...
    replay = await client.chat.completions.with_raw_response.create(
        model=MODEL,
        messages=messages,
        temperature=0,
        stream=True,  # type: ignore[arg-type]
    )
    assert replay.headers["x-cache"] == "HIT; layer=request"
    assert (
        "".join([c.choices[0].delta.content or "" async for c in replay.parse() if c.choices])
        == answer
    )

    # ...and a streamed miss is relayed chunk by chunk, then cached after the last chunk.
    fresh = [{"role": "user", "content": "MacBook Air M3 多重"}]
    streamed = await client.chat.completions.with_raw_response.create(
        model=MODEL,
        messages=fresh,
        temperature=0,
        stream=True,  # type: ignore[arg-type]
        stream_options={"include_usage": True},
    )
    assert streamed.headers["x-cache"] == "MISS"
    chunks = [c async for c in streamed.parse()]
    streamed_text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    again = await client.chat.completions.with_raw_response.create(
        model=MODEL,
        messages=fresh,
        temperature=0,
        stream=True,  # type: ignore[arg-type]
    )
    assert again.headers["x-cache"] == "HIT; layer=request"
    replayed = [c async for c in again.parse()]
    assert "".join(c.choices[0].delta.content or "" for c in replayed if c.choices) == streamed_text
    assert all(c.usage is None for c in replayed)  # the client did not ask for usage
    plain = await client.chat.completions.create(model=MODEL, messages=fresh, temperature=0)  # type: ignore[arg-type]
    assert plain.choices[0].message.content == streamed_text

    models = await client.models.list()
    assert [m.id for m in models.data] == [MODEL]


async def test_normalised_requests_share_a_key_and_parameters_split_it(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url, allow_temperature_cache=True)
    async with gateway.client() as client:
        first = await client.post("/v1/chat/completions", json=chat_body("苹果15 重量是多少"))
        assert first.headers["x-cache"] == "MISS"
        reordered = (
            '{"max_tokens":64,"temperature":0.0,"messages":[{"content":"  苹果15\\n  重量是多少 ",'
            '"role":"user"}],"model":"cachecoh-offline","user":"someone","metadata":{"a":"b"}}'
        )
        same = await client.post(
            "/v1/chat/completions", content=reordered, headers={"content-type": "application/json"}
        )
        assert same.headers["x-cache"] == "HIT; layer=request"
        assert same.headers["x-cache-key"] == first.headers["x-cache-key"]

        warmer = await client.post(
            "/v1/chat/completions", json=chat_body("苹果15 重量是多少", temperature=0.5)
        )
        tools = [
            {"type": "function", "function": {"name": "weigh", "parameters": {"type": "object"}}}
        ]
        with_tools = await client.post(
            "/v1/chat/completions", json=chat_body("苹果15 重量是多少", tools=tools)
        )
    keys = {
        first.headers["x-cache-key"],
        warmer.headers["x-cache-key"],
        with_tools.headers["x-cache-key"],
    }
    assert len(keys) == 3
    # The gateway owns sampling of grounded answers: another temperature is the same
    # semantic answer; other output parameters (tools) still need their own.
    assert warmer.headers["x-cache"] == "HIT; layer=semantic"
    assert not with_tools.headers["x-cache"].startswith("HIT")


async def test_tenants_never_share_entries(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    body = chat_body("小米14 屏幕多大")
    async with gateway.client(KEY_A) as tenant_a, gateway.client(KEY_B) as tenant_b:
        a1 = await tenant_a.post("/v1/chat/completions", json=body)
        a2 = await tenant_a.post("/v1/chat/completions", json=body)
        b1 = await tenant_b.post("/v1/chat/completions", json=body)
        b2 = await tenant_b.post("/v1/chat/completions", json=body)
        # A client cannot pick its salt or tenant: both are ignored.
        b3 = await tenant_b.post(
            "/v1/chat/completions",
            json={**body, "cache_salt": "anything"},
            headers={"x-tenant": "tenant-a"},
        )
    assert (a1.headers["x-cache"], a2.headers["x-cache"]) == ("MISS", "HIT; layer=request")
    assert b1.headers["x-cache"] == "MISS"
    assert b2.headers["x-cache"] == b3.headers["x-cache"] == "HIT; layer=request"
    assert b1.headers["x-cache-key"] != a1.headers["x-cache-key"]
    assert b3.headers["x-cache-key"] == b1.headers["x-cache-key"]


async def test_paraphrase_hits_the_semantic_layer_and_is_promoted(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        first = await client.post("/v1/chat/completions", json=chat_body("iPhone15电池续航多久"))
        paraphrase = await client.post(
            "/v1/chat/completions", json=chat_body("苹果15充一次电能用几天")
        )
        # The promotion is written in the background after the reply (fill, then the
        # pointer): wait until it is counted, then the repeat must hit the request layer.
        # (the first answer's fill and the promotion: two request-layer entries)
        for _ in range(100):
            if await gateway.metric("cachecoh_gateway_fills_total", layer="request") >= 2:
                break
            await asyncio.sleep(0.05)
        again = await client.post("/v1/chat/completions", json=chat_body("苹果15充一次电能用几天"))
        multi_turn = await client.post(
            "/v1/chat/completions",
            json={
                **chat_body("苹果15充一次电能用几天"),
                "messages": [
                    {"role": "user", "content": "你好"},
                    {"role": "assistant", "content": "您好，请问有什么可以帮您？"},
                    {"role": "user", "content": "苹果15充一次电能用几天"},
                ],
            },
        )
    assert first.headers["x-cache"] == "MISS"
    assert paraphrase.headers["x-cache"] == "HIT; layer=semantic"
    assert paraphrase.json()["choices"] == first.json()["choices"]
    assert again.headers["x-cache"] == "HIT; layer=request"
    assert multi_turn.headers["x-cache"] == "MISS"
    assert (
        await gateway.metric(
            "request_cache_bypass_reason_total", layer="semantic", reason="multi_turn"
        )
        == 1
    )


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("iPhone 15和iPhone 16哪个续航更好", "compare"),
        ("推荐一款拍照好的手机", "recommend"),
        ("我的订单到哪了", "personal"),
    ],
)
async def test_admission_bypasses_are_counted_by_reason(
    gateway_factory: GatewayFactory, engine: ManagedProcess, question: str, reason: str
) -> None:
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        for _ in range(2):
            response = await client.post("/v1/chat/completions", json=chat_body(question))
            assert response.status_code == 200
            assert response.headers["x-cache"] == f"BYPASS; reason={reason}"
    assert (
        await gateway.metric("request_cache_bypass_reason_total", layer="all", reason=reason) == 2
    )


async def test_cache_control_headers(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    body = chat_body("Tesla Model 3 续航多少公里")
    async with gateway.client() as client:
        no_store = await client.post(
            "/v1/chat/completions", json=body, headers={"cache-control": "no-store"}
        )
        still_miss = await client.post(
            "/v1/chat/completions", json=body, headers={"x-cache-ttl": "60"}
        )
        hit = await client.post("/v1/chat/completions", json=body)
        async with gateway.admin() as admin:
            entry = await admin.get(f"/admin/entries/{hit.headers['x-cache-key']}")
        assert 0 < entry.json()["ttl_ms"] <= 60_000
        refreshed = await client.post(
            "/v1/chat/completions", json=body, headers={"cache-control": "no-cache"}
        )
        other_space = await client.post(
            "/v1/chat/completions", json=body, headers={"x-cache-namespace": "beta"}
        )
        bad_ttl = await client.post("/v1/chat/completions", json=body, headers={"x-cache-ttl": "0"})
    assert no_store.headers["x-cache"] == "MISS"
    assert still_miss.headers["x-cache"] == "MISS"
    assert hit.headers["x-cache"] == "HIT; layer=request"
    assert refreshed.headers["x-cache"] == "MISS"
    assert other_space.headers["x-cache"] == "MISS"
    assert bad_ttl.status_code == 400
    assert bad_ttl.json()["error"]["param"] == "header:x-cache-ttl"


async def test_bad_requests_and_missing_keys(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        not_json = await client.post(
            "/v1/chat/completions", content=b"{", headers={"content-type": "application/json"}
        )
        bad_role = await client.post(
            "/v1/chat/completions",
            json={"model": MODEL, "messages": [{"role": "robot", "content": "hi"}]},
        )
        bad_temperature = await client.post(
            "/v1/chat/completions", json=chat_body("hi", temperature=9)
        )
    async with httpx.AsyncClient(base_url=gateway.url) as anonymous:
        no_key = await anonymous.post("/v1/chat/completions", json=chat_body("hi"))
    async with gateway.client("sk-not-a-real-key-000") as stranger:
        wrong_key = await stranger.post("/v1/chat/completions", json=chat_body("hi"))
    assert (not_json.status_code, not_json.json()["error"]["param"]) == (400, "body")
    assert (bad_role.status_code, bad_role.json()["error"]["param"]) == (400, "messages[0].role")
    assert bad_temperature.json()["error"]["param"] == "temperature"
    assert no_key.status_code == wrong_key.status_code == 401


async def test_admin_api_purges_by_tag_and_shows_entries(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    body = chat_body("华为Mate 60 Pro 重量")
    async with gateway.client() as client, gateway.admin() as admin:
        miss = await client.post("/v1/chat/completions", json=body)
        key = miss.headers["x-cache-key"]
        entry = (await admin.get(f"/admin/entries/{key}")).json()
        assert entry["valid"] is True
        assert entry["product"] == "huawei_mate_60_pro"
        assert entry["spec_versions"]["huawei_mate_60_pro"] >= 1
        assert set(entry["tags"]) == set(miss.headers["surrogate-key"].split())
        assert "content" not in json.dumps(entry)

        async with httpx.AsyncClient(base_url=gateway.url) as anonymous:
            denied = await anonymous.post("/admin/purge", json={"tags": ["huawei_mate_60_pro/p"]})
        assert denied.status_code == 401
        purged = await admin.post("/admin/purge", json={"tags": ["huawei_mate_60_pro/s:weight"]})
        assert purged.status_code == 200
        assert (await admin.get(f"/admin/entries/{key}")).json()["valid"] is False
        after = await client.post("/v1/chat/completions", json=body)
        assert after.headers["x-cache"] == "STALE; layer=request"
        bad_tag = await admin.post("/admin/purge", json={"tags": ["no-slash"]})
        assert bad_tag.status_code == 400
        missing = await admin.get("/admin/entries/req:huawei_mate_60_pro:" + "0" * 64)
        assert missing.status_code == 404
