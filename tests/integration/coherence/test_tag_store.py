"""The Lua scripts against the real Redis: lookup, guarded fill, bump, lazy delete."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.adapters.redis_pipeline import PipelinedRedis
from services.adapters.redis_tag_store import (
    BumpRequest,
    LogPosition,
    LookupStatus,
    RedisTagStore,
    ReplicaKeys,
    position_field,
)
from services.core.errors import ReplicaBehind
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump
from services.core.tags import answer_tags

pytestmark = pytest.mark.integration


def _fields(slot: str, *variants: str) -> list[str]:
    return [t.field for t in answer_tags("iphone_15", "query_spec", [slot], variants)]


async def test_fill_then_lookup_serves_until_a_tag_is_bumped(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    snap = await store.snapshot("iphone_15", _fields("battery_life"))
    assert await store.fill(Layer.SEMANTIC, "d1", snap, b'{"a":1}', ttl_ms=60_000)
    hit = await store.lookup("iphone_15", Layer.SEMANTIC, "d1")
    assert hit.status is LookupStatus.HIT and hit.body == b'{"a":1}'

    other = await store.snapshot("iphone_15", _fields("weight"))
    assert await store.fill(Layer.SEMANTIC, "d2", other, b"w", ttl_ms=60_000)

    bumped = await store.bump(
        ProductBump("iphone_15", ("s:battery_life",)), event_id="e1", spec_version=2
    )
    assert bumped.applied
    assert (await store.lookup("iphone_15", Layer.SEMANTIC, "d1")).status is LookupStatus.STALE
    # lazily deleted: the second lookup finds nothing
    assert (await store.lookup("iphone_15", Layer.SEMANTIC, "d1")).status is LookupStatus.MISS
    assert (await store.lookup("iphone_15", Layer.SEMANTIC, "d2")).status is LookupStatus.HIT


async def test_fill_with_an_old_snapshot_is_refused(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    snap = await store.snapshot("iphone_15", _fields("battery_life"))
    await store.bump(ProductBump("iphone_15", ("p",)), event_id="e1", spec_version=2)
    assert not await store.fill(Layer.SEMANTIC, "d1", snap, b"old", ttl_ms=60_000)
    assert (await store.lookup("iphone_15", Layer.SEMANTIC, "d1")).status is LookupStatus.MISS


async def test_variant_bump_spares_other_variants(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    for digest, variants in (("v256", ("256GB",)), ("v512", ("512GB",)), ("all", ())):
        snap = await store.snapshot("iphone_15", _fields("price", *variants))
        assert await store.fill(Layer.SEMANTIC, digest, snap, digest.encode(), ttl_ms=60_000)
    await store.bump(
        ProductBump("iphone_15", ("s:price.256GB", "s:price.*")), event_id="e", spec_version=2
    )
    statuses = {
        d: (await store.lookup("iphone_15", Layer.SEMANTIC, d)).status
        for d in ("v256", "v512", "all")
    }
    assert statuses == {
        "v256": LookupStatus.STALE,
        "v512": LookupStatus.HIT,
        "all": LookupStatus.STALE,
    }


async def test_duplicate_event_id_bumps_once(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    bump = ProductBump("iphone_15", ("s:weight",))
    first = await store.bump(bump, event_id="same", spec_version=3)
    second = await store.bump(bump, event_id="same", spec_version=3)
    assert first.applied and not second.applied
    gens = await store.generations("iphone_15")
    assert gens["_spec_version"] == "3"


async def test_lost_generation_hash_never_resurrects_an_entry(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    """If the generations hash is evicted or lost, old entries must not match again."""
    store = RedisTagStore(redis_client, keyspace)
    snap = await store.snapshot("iphone_15", _fields("weight"))
    assert await store.fill(Layer.SEMANTIC, "d", snap, b"x", ttl_ms=60_000)
    await redis_client.delete(keyspace.generations("iphone_15"))
    await store.snapshot("iphone_15", _fields("weight"))  # recreates with fresh values
    assert (await store.lookup("iphone_15", Layer.SEMANTIC, "d")).status is LookupStatus.STALE


async def test_every_entry_has_a_ttl(redis_client: aioredis.Redis, keyspace: KeySpace) -> None:
    store = RedisTagStore(redis_client, keyspace)
    snap = await store.snapshot("iphone_15", _fields("weight"))
    await store.fill(Layer.SEMANTIC, "d", snap, b"x", ttl_ms=5_000)
    ttl = await redis_client.pttl(keyspace.entry("iphone_15", Layer.SEMANTIC, "d"))
    assert 0 < ttl <= 5_000


async def test_fills_are_indexed_per_product_for_the_checker(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = RedisTagStore(redis_client, keyspace)
    snap = await store.snapshot("iphone_15", _fields("weight"))
    await store.fill(Layer.SEMANTIC, "a", snap, b"x", ttl_ms=60_000)
    await store.fill(Layer.REQUEST, "b", snap, b"y", ttl_ms=60_000)
    assert sorted(await store.indexed_entries("iphone_15")) == [
        (Layer.REQUEST, "b"),
        (Layer.SEMANTIC, "a"),
    ]
    assert await store.indexed_entries("iphone_16") == []


def _guarded(client: aioredis.Redis, keyspace: KeySpace) -> RedisTagStore:
    return RedisTagStore(client, keyspace, replica=ReplicaKeys(keyspace.prefix))


async def test_guarded_store_serves_only_under_a_verified_lease(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    gateway, worker = _guarded(redis_client, keyspace), _guarded(redis_client, keyspace)
    snap = await gateway.snapshot("iphone_15", _fields("battery_life"))
    # no record yet (a new, flushed or replaced dataset): no entries, no lookups
    assert not await gateway.fill(Layer.SEMANTIC, "d", snap, b"x", ttl_ms=60_000)
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "d")).status is (
        LookupStatus.UNVERIFIED
    )
    field = position_field("spec", 0)
    adopted = await worker.verify({field: 41}, own=[field], lease_ms=5000, worker="w")
    assert adopted.adopted and adopted.leased and not adopted.behind
    assert await gateway.fill(Layer.SEMANTIC, "d", snap, b"x", ttl_ms=60_000)
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "d")).status is LookupStatus.HIT
    # the log says more was acknowledged than Redis holds: lease off, partition behind
    behind = await worker.verify({field: 45}, own=[field], lease_ms=5000, worker="w")
    assert not behind.leased and behind.behind == {field: 41}
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "d")).status is (
        LookupStatus.UNVERIFIED
    )


@pytest.mark.parametrize("connection", ["redis-py", "pipelined"])
async def test_a_bump_on_a_record_that_lost_writes_is_refused(
    redis_client: aioredis.Redis, redis_url: str, keyspace: KeySpace, connection: str
) -> None:
    """Through redis-py's pipeline and through the worker's pipelined connection alike."""
    pipeline = (
        PipelinedRedis.from_url(redis_url, timeout_s=2.0) if connection == "pipelined" else None
    )
    gateway = _guarded(redis_client, keyspace)
    worker = RedisTagStore(
        redis_client, keyspace, replica=ReplicaKeys(keyspace.prefix), pipeline=pipeline
    )
    try:
        await _refused_and_repaired(redis_client, keyspace, gateway, worker)
    finally:
        if pipeline is not None:
            await pipeline.aclose()


async def _refused_and_repaired(
    redis_client: aioredis.Redis, keyspace: KeySpace, gateway: RedisTagStore, worker: RedisTagStore
) -> None:
    field = position_field("spec", 0)
    with pytest.raises(ReplicaBehind):  # a partition nobody verified yet
        await worker.bump_many([], [LogPosition("spec", 0, 1)])
    await worker.verify({field: 9}, own=[field], lease_ms=5000, worker="w")
    bump = BumpRequest(
        ProductBump("iphone_15", ("s:weight",)), "e10", 2, LogPosition("spec", 0, 10)
    )
    assert (await worker.bump_many([bump], [LogPosition("spec", 0, 11)]))[0].applied
    snap = await gateway.snapshot("iphone_15", _fields("weight"))
    assert await gateway.fill(Layer.SEMANTIC, "w", snap, b"w", ttl_ms=60_000)
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "w")).status is LookupStatus.HIT
    record = ReplicaKeys(keyspace.prefix).record
    assert await redis_client.hget(record, field) == b"11"
    # Redis rolls back (as a restore from an older snapshot would): the record holds 9 again
    await redis_client.hset(record, mapping={field: 9, "_seq": 0})
    later = BumpRequest(
        ProductBump("iphone_15", ("s:weight",)), "e12", 3, LogPosition("spec", 0, 12)
    )
    with pytest.raises(ReplicaBehind) as refused:
        await worker.bump_many([later], [LogPosition("spec", 0, 12)])
    assert refused.value.partitions == {field: 9}
    # the gateway saw a higher applied sequence: it serves nothing from the older dataset
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "w")).status is (
        LookupStatus.UNVERIFIED
    )
    # repaired (re-applied from 9) and re-verified with a new epoch: served again
    await worker.trust(field, 9)
    await worker.bump_many([bump, later], [LogPosition("spec", 0, 12)])
    repaired = await worker.verify(
        {field: 12}, own=[field], lease_ms=5000, worker="w", new_epoch=True
    )
    assert repaired.leased
    fresh = await gateway.snapshot("iphone_15", _fields("weight"))
    assert await gateway.fill(Layer.SEMANTIC, "w2", fresh, b"w2", ttl_ms=60_000)
    assert (await gateway.lookup("iphone_15", Layer.SEMANTIC, "w2")).status is LookupStatus.HIT


async def test_an_unguarded_store_takes_positions_and_keeps_no_record(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    """A worker on Redis Cluster runs unguarded: positions are ignored, not an error."""
    store = RedisTagStore(redis_client, keyspace)
    bump = BumpRequest(ProductBump("iphone_15", ("s:weight",)), "e1", 2, LogPosition("t", 0, 5))
    assert (await store.bump_many([bump], [LogPosition("t", 0, 6)]))[0].applied
    assert await store.bump_many([], [LogPosition("t", 0, 7)]) == []
    assert not await redis_client.exists(ReplicaKeys(keyspace.prefix).record)


async def test_a_batch_reply_decodes_generations_only_when_read(
    redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    """The worker reads only ``applied`` of each result; the new generations are decoded
    from the reply when something (an admin purge) reads them, and match Redis."""
    store = RedisTagStore(redis_client, keyspace)
    fields = ("s:weight", "i:query_spec")
    bump = BumpRequest(ProductBump("iphone_15", fields), "lazy-1", 2)
    again = BumpRequest(ProductBump("iphone_15", fields), "lazy-1", 2)
    first, duplicate = await store.bump_many([bump]) + await store.bump_many([again])
    assert first.applied and not duplicate.applied
    assert first._decoded is None  # nothing decoded yet
    held = await store.generations("iphone_15")
    assert first.generations == tuple((f, int(held[f])) for f in fields)
    assert duplicate.generations == ()
