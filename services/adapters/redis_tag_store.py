"""The tag/generation store on Redis: lookup, guarded fill, snapshot, bump.

Each operation is one Lua script over keys of one product (one cluster slot). Redis
errors are translated once, here, into ``StoreUnavailable``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import RedisClusterException, RedisError

from services.core.entries import Snapshot, decode_entry, encode_entry
from services.core.errors import StoreUnavailable
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump

T = TypeVar("T")
RedisClient = Redis | RedisCluster


def connect_redis(
    url: str, *, cluster: bool, timeout_s: float = 2.0, max_connections: int | None = None
) -> RedisClient:
    """A client whose calls fail (and are retried or failed open) instead of hanging on a
    stalled server; standalone or Redis Cluster."""
    if cluster:
        return RedisCluster.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
    extra: dict[str, Any] = {} if max_connections is None else {"max_connections": max_connections}
    return Redis.from_url(
        url,
        health_check_interval=10,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        **extra,
    )


@cache
def script_source(name: str) -> str:
    """A script with the shared prelude prepended."""
    lua = resources.files("services.adapters") / "lua"
    return (lua / "_prelude.lua").read_text() + "\n" + (lua / f"{name}.lua").read_text()


class LookupStatus(Enum):
    HIT = 1
    MISS = 0
    STALE = 2


@dataclass(frozen=True, slots=True)
class Lookup:
    status: LookupStatus
    body: bytes | None = None


@dataclass(frozen=True, slots=True)
class BumpResult:
    """``applied`` is False when the event id was already applied (dedupe)."""

    applied: bool
    generations: tuple[tuple[str, int], ...] = ()


class RedisTagStore:
    """Coherent answer storage over one Redis (standalone or cluster)."""

    def __init__(
        self,
        client: RedisClient,
        keys: KeySpace,
        *,
        generations_ttl_ms: int = 7 * 24 * 3600 * 1000,
        dedupe_ttl_ms: int = 24 * 3600 * 1000,
        index_entries: bool = True,
    ) -> None:
        self._client = client
        self.keys = keys
        self._generations_ttl_ms = generations_ttl_ms
        self._dedupe_ttl_ms = dedupe_ttl_ms
        self._index_entries = index_entries
        self._lookup: AsyncScript = client.register_script(script_source("lookup"))
        self._fill: AsyncScript = client.register_script(script_source("fill"))
        self._snapshot: AsyncScript = client.register_script(script_source("snapshot"))
        self._bump: AsyncScript = client.register_script(script_source("bump"))

    @property
    def client(self) -> RedisClient:
        return self._client

    async def _call(self, what: str, op: Callable[[], Awaitable[T]]) -> T:
        try:
            return await op()
        except (RedisError, RedisClusterException) as exc:
            raise StoreUnavailable(f"redis {what} failed: {exc}") from exc
        except OSError as exc:
            raise StoreUnavailable(f"redis {what} failed: {exc}") from exc

    async def snapshot(self, product: str, fields: Sequence[str]) -> Snapshot:
        """Current generations of ``fields`` (taken before reading facts)."""
        ordered = sorted(set(fields))
        gens_key = self.keys.generations(product)
        raw: list[Any] = await self._call(
            "snapshot",
            lambda: self._snapshot(keys=[gens_key], args=[self._generations_ttl_ms, *ordered]),
        )
        return Snapshot.of(product, zip(ordered, (_text(g) for g in raw), strict=True))

    async def lookup(self, product: str, layer: Layer, digest: str) -> Lookup:
        entry_key = self.keys.entry(product, layer, digest)
        gens_key = self.keys.generations(product)
        raw: list[Any] = await self._call(
            "lookup", lambda: self._lookup(keys=[entry_key, gens_key], args=[])
        )
        status = LookupStatus(int(raw[0]))
        return Lookup(status, bytes(raw[1]) if status is LookupStatus.HIT else None)

    async def fill(
        self, layer: Layer, digest: str, snapshot: Snapshot, body: bytes, ttl_ms: int
    ) -> bool:
        """Guarded fill: stored only if no generation moved since ``snapshot``."""
        if ttl_ms <= 0:
            raise ValueError("every entry needs a TTL backstop")
        stored = await self._call(
            "fill",
            lambda: self._fill(
                keys=self._fill_keys(snapshot.product, layer, digest),
                args=self._fill_args(layer, digest, snapshot, body, ttl_ms),
            ),
        )
        return bool(stored)

    def _fill_keys(self, product: str, layer: Layer, digest: str) -> list[str]:
        return [
            self.keys.entry(product, layer, digest),
            self.keys.generations(product),
            self.keys.entry_index(product),
        ]

    def _fill_args(
        self, layer: Layer, digest: str, snapshot: Snapshot, body: bytes, ttl_ms: int
    ) -> list[Any]:
        member = f"{layer.value}:{digest}" if self._index_entries else ""
        return [ttl_ms, encode_entry(snapshot, body), member, self._generations_ttl_ms]

    async def peek(self, product: str, layer: Layer, digest: str) -> Snapshot | None:
        """An entry's stored snapshot without judging it (checker selection, admin reads)."""
        key = self.keys.entry(product, layer, digest)
        raw = await self._call("get", lambda: self._client.get(key))
        if raw is None:
            return None
        value = raw if isinstance(raw, bytes) else str(raw).encode()
        try:
            snapshot, _ = decode_entry(product, value)
        except ValueError:
            return None
        return snapshot

    async def indexed_entries(self, product: str, limit: int = 1000) -> list[tuple[Layer, str]]:
        """Live entries of a product from the index (checker and admin; not a request path)."""
        key = self.keys.entry_index(product)
        now_ms = int(time.time() * 1000)
        raw: list[Any] = await self._call(
            "index read",
            lambda: self._client.zrangebyscore(key, now_ms, "+inf", start=0, num=limit),
        )
        out = []
        for member in raw:
            layer, _, digest = _text(member).partition(":")
            out.append((Layer(layer), digest))
        return out

    async def fill_many(
        self, fills: Sequence[tuple[Layer, str, Snapshot, bytes]], ttl_ms: int
    ) -> list[bool]:
        """Guarded fills in one pipeline (warm-up and benchmarks); one result per fill."""
        if ttl_ms <= 0:
            raise ValueError("every entry needs a TTL backstop")

        calls = [
            (
                self._fill_keys(snapshot.product, layer, digest),
                self._fill_args(layer, digest, snapshot, body, ttl_ms),
            )
            for layer, digest, snapshot, body in fills
        ]

        async def run() -> list[Any]:
            return await self._run_scripts(self._fill, calls)

        return [bool(r) for r in await self._call("fill pipeline", run)]

    async def bump(self, bump: ProductBump, *, event_id: str, spec_version: int) -> BumpResult:
        """Increment a product's generations for one event (idempotent per event id)."""
        gens_key = self.keys.generations(bump.product)
        seen_key = self.keys.seen_event(bump.product, event_id)
        raw: list[Any] = await self._call(
            "bump",
            lambda: self._bump(
                keys=[gens_key, seen_key],
                args=[
                    self._dedupe_ttl_ms,
                    self._generations_ttl_ms,
                    spec_version,
                    *bump.fields,
                ],
            ),
        )
        return _bump_result(bump, raw)

    async def bump_many(self, bumps: Sequence[tuple[ProductBump, str, int]]) -> list[BumpResult]:
        """Several bumps (bump, event id, spec version) in one pipeline, one round trip.

        Bumps commute (increments, a max, set-if-absent markers), so their order inside
        the pipeline does not matter; a retried pipeline re-applies nothing twice.
        """

        calls = [
            (
                [self.keys.generations(bump.product), self.keys.seen_event(bump.product, event_id)],
                [self._dedupe_ttl_ms, self._generations_ttl_ms, spec_version, *bump.fields],
            )
            for bump, event_id, spec_version in bumps
        ]

        async def run() -> list[Any]:
            return await self._run_scripts(self._bump, calls)

        raw = await self._call("bump pipeline", run)
        return [_bump_result(bump, r) for (bump, _, _), r in zip(bumps, raw, strict=True)]

    async def _run_scripts(
        self, script: AsyncScript, calls: Sequence[tuple[list[str], list[Any]]]
    ) -> list[Any]:
        """Many calls of one script in one round trip. A standalone Redis takes them as a
        pipeline; redis-py's cluster pipeline refuses EVALSHA, so on a cluster the calls
        (one slot each) run concurrently instead."""
        if isinstance(self._client, RedisCluster):
            return list(await asyncio.gather(*(script(keys=k, args=a) for k, a in calls)))
        pipe = self._client.pipeline(transaction=False)
        for keys, args in calls:
            await script(keys=keys, args=args, client=pipe)
        return list(await pipe.execute())

    async def generations(self, product: str) -> dict[str, str]:
        """All generation fields of a product (admin and checker reads)."""
        key = self.keys.generations(product)
        raw: dict[Any, Any] = await self._call("hgetall", lambda: self._client.hgetall(key))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def delete_entry(self, product: str, layer: Layer, digest: str) -> int:
        key = self.keys.entry(product, layer, digest)
        return int(await self._call("unlink", lambda: self._client.unlink(key)))

    async def ping(self) -> bool:
        return bool(await self._call("ping", lambda: self._client.ping()))


def _bump_result(bump: ProductBump, raw: list[Any]) -> BumpResult:
    if int(raw[0]) == 0:
        return BumpResult(applied=False)
    return BumpResult(
        applied=True,
        generations=tuple(zip(bump.fields, (int(g) for g in raw[1:]), strict=True)),
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
