"""Redis adapters of the gateway: request pointers, single-flight leases, the per-key
token bucket, the fill breaker, kill switches and the admin's entry inspector.

Each is one command or one Lua script per call. Redis errors are translated here, once,
into ``StoreUnavailable``; the service fails open on it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from prometheus_client import Counter
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from services.adapters.redis_pipeline import PipelinedRedis
from services.adapters.redis_tag_store import (
    RedisClient,
    RedisTagStore,
    ReplicaKeys,
    Unverified,
)
from services.core.entries import decode_entry
from services.core.errors import StoreUnavailable
from services.core.keys import KeySpace, Layer

log = logging.getLogger(__name__)
T = TypeVar("T")


@cache
def _script(name: str) -> str:
    return (resources.files("services.adapters") / "lua" / f"{name}.lua").read_text()


async def _call(what: str, op: Callable[[], Awaitable[T]]) -> T:
    try:
        return await op()
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"redis {what} failed: {type(exc).__name__}") from exc


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def answer_store(
    client: RedisClient,
    keys: KeySpace,
    *,
    replica_guard: bool,
    unverified: Counter,
    pipeline: PipelinedRedis | None = None,
) -> RedisTagStore:
    """The answer store the gateway looks up and fills. With ``replica_guard`` (the
    default setting) a lookup serves an entry only under the coherence worker's lease and
    never from an older (epoch, applied sequence) than this process has seen; otherwise it
    reports ``UNVERIFIED``, counted in ``unverified`` by layer and reason, and the request
    fails open to the model (docs/coherence.md, "Redis as a replica"). With ``pipeline``
    (single-node Redis) lookups go over that one pipelined connection."""
    layer_names = {"req": "request", "sem": "semantic"}

    def count(layer: Layer, why: Unverified) -> None:
        unverified.labels(layer_names.get(layer.value, layer.value), why.value).inc()

    return RedisTagStore(
        client,
        keys,
        replica=ReplicaKeys(keys.prefix) if replica_guard else None,
        on_unverified=count,
        pipeline=pipeline,
    )


@dataclass(frozen=True, slots=True)
class GatewayKeys:
    """Names of the gateway's own keys (answers and generations use ``KeySpace``)."""

    prefix: str

    def lease(self, key: str) -> str:
        return f"{self.prefix}:gw:lease:{key}"

    def bucket(self, key: str) -> str:
        return f"{self.prefix}:gw:bucket:{key}"

    def breaker(self, key: str) -> str:
        return f"{self.prefix}:gw:breaker:{key}"

    def switches(self) -> str:
        return f"{self.prefix}:gw:switches"


class RequestPointers:
    """Request digest → product, so a request-layer hit finds its entry's slot."""

    def __init__(self, client: RedisClient, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    async def product_of(self, digest: str) -> str | None:
        key = self._keys.request_pointer(digest)
        raw = await _call("get pointer", lambda: self._client.get(key))
        return _text(raw) if raw is not None else None

    async def point(self, digest: str, product: str, ttl_ms: int) -> None:
        key = self._keys.request_pointer(digest)
        await _call("set pointer", lambda: self._client.set(key, product, px=ttl_ms))


class RedisLeases:
    """Single-flight across replicas: ``SET NX PX`` with a token, released by its owner."""

    def __init__(self, client: RedisClient, keys: GatewayKeys, ttl_ms: int) -> None:
        self._client = client
        self._keys = keys
        self._ttl_ms = ttl_ms
        self._release: AsyncScript = client.register_script(_script("lease_release"))

    async def acquire(self, key: str) -> str | None:
        token = secrets.token_hex(8)
        name = self._keys.lease(key)
        got = await _call("lease", lambda: self._client.set(name, token, nx=True, px=self._ttl_ms))
        return token if got else None

    async def held(self, key: str) -> bool:
        name = self._keys.lease(key)
        return bool(await _call("lease exists", lambda: self._client.exists(name)))

    async def release(self, key: str, token: str) -> None:
        name = self._keys.lease(key)
        await _call("lease release", lambda: self._release(keys=[name], args=[token]))


@dataclass(frozen=True, slots=True)
class Admission:
    allowed: bool
    retry_after_s: int = 0


class RedisTokenBucket:
    """Per-key token bucket (one Lua call) guarding upstream calls on the miss path."""

    def __init__(
        self, client: RedisClient, keys: GatewayKeys, *, capacity: int, refill_per_s: float
    ) -> None:
        self._keys = keys
        self._capacity = capacity
        self._refill = refill_per_s
        self._take: AsyncScript = client.register_script(_script("token_bucket"))

    async def take(self, key: str) -> Admission:
        name = self._keys.bucket(key)
        raw: list[Any] = await _call(
            "token bucket", lambda: self._take(keys=[name], args=[self._capacity, self._refill])
        )
        allowed, wait_ms = int(raw[0]), int(raw[1])
        return Admission(bool(allowed), 0 if allowed else max(1, -(-wait_ms // 1000)))


class RedisFillBreaker:
    """Counts one key's upstream misses per minute; opens above the threshold."""

    WINDOW_MS = 60_000

    def __init__(self, client: RedisClient, keys: GatewayKeys, *, misses_per_minute: int) -> None:
        self._keys = keys
        self._threshold = misses_per_minute
        self._count: AsyncScript = client.register_script(_script("breaker"))

    async def record_miss(self, key: str) -> Admission:
        name = self._keys.breaker(key)
        raw: list[Any] = await _call(
            "breaker", lambda: self._count(keys=[name], args=[self.WINDOW_MS])
        )
        count, ttl_ms = int(raw[0]), int(raw[1])
        if count > self._threshold:
            return Admission(False, max(1, -(-ttl_ms // 1000)))
        return Admission(True)


class SwitchLayer:
    REQUEST = "request"
    SEMANTIC = "semantic"
    PREFIX_ROUTING = "prefix_routing"
    ALL = ("request", "semantic", "prefix_routing")


@dataclass(frozen=True, slots=True)
class SwitchState:
    request: bool = True
    semantic: bool = True
    prefix_routing: bool = True

    def as_dict(self) -> dict[str, bool]:
        return {name: bool(getattr(self, name)) for name in SwitchLayer.ALL}

    @classmethod
    def from_hash(cls, raw: Mapping[Any, Any]) -> SwitchState:
        values = {_text(k): _text(v) for k, v in raw.items()}
        return cls(**{name: values.get(name, "1") != "0" for name in SwitchLayer.ALL})


class RedisKillSwitches:
    """Per-layer kill switches in one Redis hash, cached locally.

    The request path reads :attr:`state` (no Redis call); :meth:`run` re-reads the hash
    every ``refresh_s`` (≤ 1 s), so a flip on any replica is seen everywhere within it.
    When Redis is unreachable the last known state stays in force.
    """

    def __init__(
        self,
        client: RedisClient,
        keys: GatewayKeys,
        *,
        refresh_s: float,
        on_change: Callable[[SwitchState], None] = lambda _s: None,
        on_error: Callable[[], None] = lambda: None,
    ) -> None:
        self._client = client
        self._key = keys.switches()
        self._refresh_s = refresh_s
        self._on_change = on_change
        self._on_error = on_error
        self.state = SwitchState()
        self.refreshed_at = 0.0

    def _apply(self, state: SwitchState) -> None:
        if state != self.state:
            log.info("kill switches now %s", state.as_dict())
        self.state = state
        self.refreshed_at = time.monotonic()
        self._on_change(state)

    async def refresh(self) -> SwitchState:
        raw = await _call("switches", lambda: self._client.hgetall(self._key))
        self._apply(SwitchState.from_hash(raw))
        return self.state

    async def set(self, layer: str, enabled: bool) -> SwitchState:
        if layer not in SwitchLayer.ALL:
            raise ValueError(f"unknown layer {layer!r}")
        await _call(
            "set switch", lambda: self._client.hset(self._key, layer, "1" if enabled else "0")
        )
        return await self.refresh()

    async def run(self) -> None:
        """Refresh forever (a background task of the app's lifespan)."""
        while True:
            try:
                await self.refresh()
            except StoreUnavailable:
                self._on_error()
            await asyncio.sleep(self._refresh_s)


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """What the admin API shows of one stored entry (never the answer's text)."""

    key: str
    ttl_ms: int
    stored_generations: dict[str, str]
    current_generations: dict[str, str | None]
    body: bytes

    @property
    def valid(self) -> bool:
        return all(self.current_generations.get(f) == g for f, g in self.stored_generations.items())


class EntryInspector:
    """Admin reads of one entry: raw value, TTL and current generations (no mutation)."""

    def __init__(self, client: RedisClient, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    async def read(self, product: str, layer: Layer, digest: str) -> EntryRecord | None:
        key = self._keys.entry(product, layer, digest)
        value = await _call("get entry", lambda: self._client.get(key))
        if value is None:
            return None
        ttl = await _call("pttl", lambda: self._client.pttl(key))
        raw = value if isinstance(value, bytes) else str(value).encode()
        snapshot, body = decode_entry(product, raw)
        fields = list(snapshot.fields)
        gens_key = self._keys.generations(product)
        current = await _call("hmget", lambda: self._client.hmget(gens_key, fields))
        return EntryRecord(
            key=key,
            ttl_ms=int(ttl),
            stored_generations=dict(snapshot.generations),
            current_generations={
                f: (_text(g) if g is not None else None)
                for f, g in zip(fields, current, strict=True)
            },
            body=body,
        )
