"""The gateway's pipelined lookup connection (single-node Redis): the same verdicts as
redis-py's, replies matched to calls in order, scripts loaded when Redis lacks them, and
every failure (refused, silent, killed connection) a redis-py error the store turns into
``StoreUnavailable``."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.adapters.embedded_broker import free_port
from services.adapters.redis_pipeline import PipelinedRedis, RedisAddress, Script
from services.adapters.redis_tag_store import LookupStatus, RedisTagStore
from services.core.errors import StoreUnavailable
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump
from services.core.tags import answer_tags

pytestmark = pytest.mark.integration

FIELDS = [t.field for t in answer_tags("iphone_15", "query_spec", ["battery_life"], ())]


@pytest.fixture
async def pipeline(redis_url: str) -> AsyncIterator[PipelinedRedis]:
    found = PipelinedRedis.from_url(redis_url, timeout_s=2.0)
    assert found is not None
    yield found
    await found.aclose()


async def test_lookups_judge_like_redis_py(
    redis_client: aioredis.Redis, keyspace: KeySpace, pipeline: PipelinedRedis
) -> None:
    plain = RedisTagStore(redis_client, keyspace)
    piped = RedisTagStore(redis_client, keyspace, pipeline=pipeline)
    snapshot = await plain.snapshot("iphone_15", FIELDS)
    for n in range(40):
        body = f"answer {n}".encode()
        assert await plain.fill(Layer.REQUEST, f"d{n}", snapshot, body, ttl_ms=60_000)
        await redis_client.set(plain.keys.request_pointer(f"d{n}"), "iphone_15", px=60_000)
    # many calls in flight on the one connection: each gets its own reply
    found = await asyncio.gather(*(piped.lookup_request(f"d{n}") for n in range(40)))
    assert [(f.status, f.body) for f in found] == [
        (LookupStatus.HIT, f"answer {n}".encode()) for n in range(40)
    ]
    assert await piped.lookup("iphone_15", Layer.REQUEST, "d3") == found[3]
    assert (await piped.lookup_request("absent")).status is LookupStatus.MISS
    await plain.bump(ProductBump("iphone_15", ("s:battery_life",)), event_id="e", spec_version=2)
    assert (await piped.lookup_request("d1")).status is LookupStatus.STALE
    assert (await piped.lookup("iphone_15", Layer.REQUEST, "d2")).status is LookupStatus.STALE


async def test_a_script_redis_lacks_is_loaded(pipeline: PipelinedRedis) -> None:
    token = secrets.token_hex(8)
    script = Script.of(f"-- {token}\nreturn ARGV[1] .. KEYS[1]")
    assert await pipeline.evalsha(script, ["k"], [token]) == f"{token}k".encode()
    assert await pipeline.execute("SCRIPT", "EXISTS", script.sha) == [1]
    failing = Script.of(f"-- {token}\nreturn redis.error_reply('nope')")
    with pytest.raises(ResponseError, match="nope"):
        await pipeline.evalsha(failing, [])
    assert await pipeline.execute("PING") == b"PONG"  # the connection is still in order


async def test_scripts_sent_together_answer_in_order(pipeline: PipelinedRedis) -> None:
    """The worker's bump batches: several scripts in one write, one reply each in call
    order, a script Redis lacks loaded, an error reply raised after every reply is in."""
    token = secrets.token_hex(8)
    echo = Script.of(f"-- {token}\nreturn ARGV[1] .. KEYS[1]")
    known = Script.of("return 7")
    await pipeline.evalsha(known, [])
    replies = await pipeline.evalsha_many(
        [(echo, ["a"], ["1"]), (known, [], []), (echo, ["b"], ["2"])]
    )
    assert replies == [b"1a", 7, b"2b"]
    failing = Script.of(f"-- {token}\nreturn redis.error_reply('nope')")
    with pytest.raises(ResponseError, match="nope"):
        await pipeline.evalsha_many([(failing, [], []), (known, [], [])])
    assert await pipeline.execute("PING") == b"PONG"  # nothing left unanswered


async def test_a_batch_of_scripts_is_one_write(pipeline: PipelinedRedis) -> None:
    """Nothing in flight: the calls of one batch leave in a single write (not the first
    at once and the rest a loop turn later, two writes and two replies to read)."""
    known = Script.of("return 7")
    await pipeline.evalsha(known, [])  # connected, the script loaded
    connection = pipeline._connection
    assert connection is not None and connection._transport is not None
    transport = connection._transport
    writes: list[bytes] = []
    write = transport.write

    def counting(data: bytes | bytearray | memoryview) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = counting  # type: ignore[method-assign]
    assert await pipeline.evalsha_many([(known, [], [])] * 3) == [7, 7, 7]
    assert len(writes) == 1 and writes[0].count(b"EVALSHA") == 3


async def test_a_killed_connection_is_replaced(
    redis_client: aioredis.Redis, pipeline: PipelinedRedis
) -> None:
    own = await pipeline.execute("CLIENT", "ID")
    await redis_client.client_kill_filter(_id=str(own))
    await asyncio.sleep(0.05)
    assert await pipeline.execute("PING") == b"PONG"
    assert await pipeline.execute("CLIENT", "ID") != own


async def test_refused_and_silent_servers_fail_the_call(keyspace: KeySpace) -> None:
    refused = PipelinedRedis(
        RedisAddress("127.0.0.1", free_port(), None, 0, None, None), timeout_s=1
    )
    with pytest.raises(RedisConnectionError):
        await refused.execute("PING")
    store = RedisTagStore(aioredis.Redis(port=free_port()), keyspace, pipeline=refused)
    with pytest.raises(StoreUnavailable):
        await store.lookup_request("d1")

    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)  # reads the command, never answers
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    silent = PipelinedRedis(RedisAddress("127.0.0.1", port, None, 0, None, None), timeout_s=0.2)
    try:
        with pytest.raises(RedisTimeoutError):
            await silent.execute("PING")
        with pytest.raises(RedisTimeoutError):  # a new connection, failed in its turn
            await silent.execute("PING")
    finally:
        await silent.aclose()
        server.close()


def test_only_plain_urls_are_pipelined() -> None:
    assert RedisAddress.of("rediss://example:6380/0") is None
    address = RedisAddress.of("redis://user:pw@example:6380/2")
    assert address == RedisAddress("example", 6380, None, 2, "user", "pw")
