"""The request-layer lookup in one round trip (single-node Redis): the script follows
the request pointer to its entry and judges it exactly like ``lookup`` (generations,
lazy delete, the coherence lease and the replica position)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.adapters.redis_tag_store import LookupStatus, RedisTagStore, ReplicaKeys
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump
from services.core.tags import answer_tags

pytestmark = pytest.mark.integration

FIELDS = [t.field for t in answer_tags("iphone_15", "query_spec", ["battery_life"], ())]


async def _filled(store: RedisTagStore, client: aioredis.Redis, digest: str) -> None:
    snapshot = await store.snapshot("iphone_15", FIELDS)
    assert await store.fill(Layer.REQUEST, digest, snapshot, b"answer", ttl_ms=60_000)
    await client.set(store.keys.request_pointer(digest), "iphone_15", px=60_000)


async def test_one_call_follows_the_pointer_and_judges_the_generations(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    assert (await store.lookup_request("d1")).status is LookupStatus.MISS  # no pointer
    await _filled(store, redis_client, "d1")
    hit = await store.lookup_request("d1")
    assert (hit.status, hit.body) == (LookupStatus.HIT, b"answer")
    assert await store.lookup("iphone_15", Layer.REQUEST, "d1") == hit  # the same verdict
    await store.bump(ProductBump("iphone_15", ("s:battery_life",)), event_id="e", spec_version=2)
    assert (await store.lookup_request("d1")).status is LookupStatus.STALE
    # deleted by the stale lookup; the pointer alone serves nothing
    assert await redis_client.exists(keyspace.entry("iphone_15", Layer.REQUEST, "d1")) == 0
    assert (await store.lookup_request("d1")).status is LookupStatus.MISS


async def test_guarded_it_serves_only_under_the_lease_and_never_goes_back(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    replica = ReplicaKeys(keyspace.prefix)
    store = RedisTagStore(redis_client, keyspace, replica=replica)
    await _filled(RedisTagStore(redis_client, keyspace), redis_client, "d2")
    assert (await store.lookup_request("d2")).status is LookupStatus.UNVERIFIED  # no lease
    await redis_client.hset(replica.record, mapping={"_seq": 7, "_epoch": 3})
    await redis_client.set(replica.lease, "worker", px=60_000)
    hit = await store.lookup_request("d2")
    assert (hit.status, hit.body) == (LookupStatus.HIT, b"answer")
    # an older dataset than this process saw (a restore): nothing is served
    await redis_client.hset(replica.record, "_seq", 6)
    assert (await store.lookup_request("d2")).status is LookupStatus.UNVERIFIED
    assert (await store.lookup("iphone_15", Layer.REQUEST, "d2")).status is (
        LookupStatus.UNVERIFIED
    )
