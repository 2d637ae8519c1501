"""Every tag-store script on a real 3-node Redis Cluster (one slot per script call)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio.cluster import RedisCluster

from services.adapters.embedded_redis_cluster import LocalRedisCluster
from services.adapters.redis_tag_store import BumpRequest, LookupStatus, RedisTagStore
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump
from services.core.tags import answer_tags

pytestmark = [pytest.mark.integration]

PRODUCTS = ["iphone_15", "xiaomi_14", "tesla_model_y", "macbook_air_m3", "p-0", "p-1", "p-2"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalRedisCluster]:
    with LocalRedisCluster(nodes=3) as running:
        yield running


@pytest.fixture
async def store(cluster: LocalRedisCluster) -> AsyncIterator[RedisTagStore]:
    client = RedisCluster.from_url(cluster.url)
    await client.initialize()  # learn the slot map before the first key is routed
    yield RedisTagStore(client, KeySpace(f"cccluster-{uuid.uuid4().hex[:8]}"))
    await client.aclose()


def _fields(product: str) -> list[str]:
    return [t.field for t in answer_tags(product, "query_spec", ["price"], ["256GB"])]


async def test_products_spread_over_the_nodes(store: RedisTagStore) -> None:
    client = store.client
    assert isinstance(client, RedisCluster)
    owners = {
        client.get_node_from_key(store.keys.generations(p)).name  # type: ignore[union-attr]
        for p in PRODUCTS
    }
    assert len(owners) >= 2  # the scripts below really run on several nodes


async def test_snapshot_fill_lookup_and_bump_per_product(store: RedisTagStore) -> None:
    for product in PRODUCTS:
        snap = await store.snapshot(product, _fields(product))
        assert await store.fill(Layer.SEMANTIC, "q", snap, b"answer", ttl_ms=60_000)
        hit = await store.lookup(product, Layer.SEMANTIC, "q")
        assert (hit.status, hit.body) == (LookupStatus.HIT, b"answer")
        bumped = await store.bump(
            ProductBump(product, ("s:price.256GB", "s:price.*")), event_id="e1", spec_version=2
        )
        assert bumped.applied
        again = await store.bump(
            ProductBump(product, ("s:price.256GB",)), event_id="e1", spec_version=2
        )
        assert not again.applied  # deduped by event id
        assert (await store.lookup(product, Layer.SEMANTIC, "q")).status is LookupStatus.STALE
        # a fill whose snapshot predates the bump is refused
        assert not await store.fill(Layer.SEMANTIC, "late", snap, b"old", ttl_ms=60_000)
        assert (await store.generations(product))["_spec_version"] == "2"


async def test_request_lookup_follows_the_pointer_in_two_calls(store: RedisTagStore) -> None:
    # On a cluster the pointer (digest's slot) and the entry (product's slot) are apart:
    # the adapter reads the pointer, then runs the entry's lookup.
    client = store.client
    for product in PRODUCTS:
        digest = f"r-{product}"
        assert (await store.lookup_request(digest)).status is LookupStatus.MISS
        snap = await store.snapshot(product, _fields(product))
        assert await store.fill(Layer.REQUEST, digest, snap, b"req", ttl_ms=60_000)
        await client.set(store.keys.request_pointer(digest), product, px=60_000)
        hit = await store.lookup_request(digest)
        assert (hit.status, hit.body) == (LookupStatus.HIT, b"req")
        bump = ProductBump(product, ("s:price.256GB", "s:price.*"))
        await store.bump(bump, event_id="r", spec_version=3)
        assert (await store.lookup_request(digest)).status is LookupStatus.STALE


async def test_pipelined_fills_and_bumps_across_slots(store: RedisTagStore) -> None:
    snaps = {p: await store.snapshot(p, _fields(p)) for p in PRODUCTS}
    stored = await store.fill_many(
        [(Layer.SEMANTIC, f"d-{p}", snaps[p], p.encode()) for p in PRODUCTS], ttl_ms=60_000
    )
    assert stored == [True] * len(PRODUCTS)
    assert {p: await store.indexed_entries(p) for p in PRODUCTS} == {
        p: [(Layer.SEMANTIC, f"d-{p}")] for p in PRODUCTS
    }
    results = await store.bump_many(
        [BumpRequest(ProductBump(p, ("s:weight",)), f"ev-{p}", 3) for p in PRODUCTS]
    )
    assert [r.applied for r in results] == [True] * len(PRODUCTS)
    unchanged = [
        p
        for p in PRODUCTS
        if (await store.lookup(p, Layer.SEMANTIC, f"d-{p}")).status is LookupStatus.HIT
    ]
    # s:weight is not among the answers' tags (price answers): still servable
    assert unchanged == PRODUCTS
    results = await store.bump_many(
        [BumpRequest(ProductBump(p, ("s:price.256GB",)), f"ev2-{p}", 4) for p in PRODUCTS]
    )
    assert all(r.applied for r in results)
    statuses = {(await store.lookup(p, Layer.SEMANTIC, f"d-{p}")).status for p in PRODUCTS}
    assert statuses == {LookupStatus.STALE}
