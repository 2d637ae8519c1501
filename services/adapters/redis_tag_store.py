"""The tag/generation store on Redis: lookup, guarded fill, snapshot, bump.

Each operation is one Lua script over keys of one product (one cluster slot). Redis
errors are translated once, here, into ``StoreUnavailable``.

Redis is a replica of the event log (docs/coherence.md, "Redis as a replica"): with
``replica`` keys, each bump records the highest applied offset per (topic, partition)
in the same script, refusing to run on a record that lost writes; lookups serve only
under the worker's coherence lease and never from an older (epoch, sequence) than this
process has seen.
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
from redis.exceptions import NoScriptError, RedisClusterException, RedisError

from services.adapters.redis_pipeline import PipelinedRedis, Script
from services.core.entries import Snapshot, decode_entry, encode_entry
from services.core.errors import ReplicaBehind, StoreUnavailable
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
    #: Redis may be behind the event log (no coherence lease, or an older applied
    #: sequence than this process saw): nothing is served, the caller fails open.
    UNVERIFIED = 3


@dataclass(frozen=True, slots=True)
class Lookup:
    status: LookupStatus
    body: bytes | None = None


class Unverified(Enum):
    """Why a guarded lookup served nothing (the label of the fail-open counter)."""

    NO_LEASE = "no_lease"
    REGRESSED = "regressed"


@dataclass(frozen=True, slots=True)
class ReplicaKeys:
    """Keys of the replica record (standalone Redis or a primary with replicas)."""

    prefix: str

    @property
    def record(self) -> str:
        return f"{self.prefix}:replica:applied"

    @property
    def lease(self) -> str:
        return f"{self.prefix}:replica:lease"

    @property
    def recovering(self) -> str:
        return f"{self.prefix}:replica:recovering"


@dataclass(frozen=True, slots=True)
class LogPosition:
    """Where a record sits in the event log."""

    topic: str
    partition: int
    offset: int

    @property
    def field(self) -> str:
        return position_field(self.topic, self.partition)


def position_field(topic: str, partition: int) -> str:
    return f"o:{topic}:{partition}"


@dataclass(frozen=True, slots=True)
class BumpRequest:
    bump: ProductBump
    #: Dedupe key of the event (CloudEvents source and id), or an internal marker.
    dedupe_key: str
    spec_version: int
    position: LogPosition | None = None


@dataclass(frozen=True, slots=True)
class Verification:
    """The worker's check of the record against the log."""

    leased: bool
    adopted: bool
    epoch: int
    behind: dict[str, int]


class BumpResult:
    """``applied`` is False when the event id was already applied (dedupe);
    ``generations`` are the bumped fields' new values, decoded from the reply when first
    read (the worker reads only ``applied``, for every event of every batch)."""

    __slots__ = ("_decoded", "_fields", "_raw", "applied")

    def __init__(
        self,
        applied: bool,
        generations: tuple[tuple[str, int], ...] = (),
        *,
        fields: tuple[str, ...] = (),
        reply: Sequence[Any] = (),
    ) -> None:
        self.applied = applied
        self._decoded: tuple[tuple[str, int], ...] | None = generations or None
        self._fields = fields
        self._raw = reply

    @property
    def generations(self) -> tuple[tuple[str, int], ...]:
        if self._decoded is None:
            self._decoded = tuple(zip(self._fields, (int(g) for g in self._raw), strict=True))
        return self._decoded

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BumpResult):
            return NotImplemented
        return (self.applied, self.generations) == (other.applied, other.generations)

    def __hash__(self) -> int:
        return hash((self.applied, self.generations))

    def __repr__(self) -> str:
        return f"BumpResult(applied={self.applied!r}, generations={self.generations!r})"


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
        replica: ReplicaKeys | None = None,
        on_unverified: Callable[[Layer, Unverified], None] = lambda _layer, _why: None,
        pipeline: PipelinedRedis | None = None,
    ) -> None:
        if replica is not None and isinstance(client, RedisCluster):
            raise ValueError("the replica record needs one slot: not on Redis Cluster")
        if pipeline is not None and isinstance(client, RedisCluster):
            raise ValueError("the pipelined lookups speak to one node: not on Redis Cluster")
        #: Lookups (the gateway's hit path, docs/gateway.md) and bump batches (the
        #: worker's) go through this one pipelined connection when given; everything
        #: else through ``client``.
        self._pipeline = pipeline
        self._client = client
        self.keys = keys
        self.replica = replica
        self._generations_ttl_ms = generations_ttl_ms
        self._dedupe_ttl_ms = dedupe_ttl_ms
        self._index_entries = index_entries
        self._on_unverified = on_unverified
        #: Highest (epoch, applied sequence) a guarded lookup has seen in this process.
        self._seen: tuple[int, int] = (0, 0)
        #: Offsets the record is known to hold (worker side): a bump on a record holding
        #: less is refused by the script, a position not in here is not verified yet.
        self._held: dict[str, int] = {}
        self._lookup: AsyncScript = client.register_script(script_source("lookup"))
        self._lookup_request: AsyncScript = client.register_script(script_source("lookup_request"))
        self._lookup_script = Script.of(script_source("lookup"))
        self._lookup_request_script = Script.of(script_source("lookup_request"))
        self._single_node = not isinstance(client, RedisCluster)
        # The request entry's and generations' keys around a product, for lookup_request.
        entry_head, _, entry_tail = keys.entry("\0", Layer.REQUEST, "\0").partition("\0")
        gens_head, _, gens_tail = keys.generations("\0").partition("\0")
        self._request_key_parts = (entry_head, entry_tail.removesuffix("\0"), gens_head, gens_tail)
        self._fill: AsyncScript = client.register_script(script_source("fill"))
        self._snapshot: AsyncScript = client.register_script(script_source("snapshot"))
        self._bump: AsyncScript = client.register_script(script_source("bump"))
        self._bump_batch_script = Script.of(script_source("bump_batch"))
        self._applied_script = Script.of(script_source("applied"))
        self._verify: AsyncScript = client.register_script(script_source("verify"))

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
        keys = [self.keys.entry(product, layer, digest), self.keys.generations(product)]
        if self.replica is not None:
            keys += [self.replica.record, self.replica.lease]
        pipeline = self._pipeline
        raw: list[Any]
        if pipeline is not None:
            raw = await self._call("lookup", lambda: pipeline.evalsha(self._lookup_script, keys))
        else:
            raw = await self._call("lookup", lambda: self._lookup(keys=keys, args=[]))
        return self._judged(layer, raw)

    async def lookup_request(self, digest: str) -> Lookup:
        """The request-layer entry ``digest``'s pointer names, judged like :meth:`lookup`
        (MISS without a pointer). One round trip on a single-node Redis (the script
        dereferences the pointer); two on a cluster, where the pointer lives in the
        digest's slot and the entry in its product's."""
        pointer = self.keys.request_pointer(digest)
        if not self._single_node:
            product = await self._call("get pointer", lambda: self._client.get(pointer))
            if product is None:
                return Lookup(LookupStatus.MISS)
            return await self.lookup(_text(product), Layer.REQUEST, digest)
        keys = [pointer]
        if self.replica is not None:
            keys += [self.replica.record, self.replica.lease]
        entry_head, entry_tail, gens_head, gens_tail = self._request_key_parts
        args = [entry_head, entry_tail + digest, gens_head, gens_tail]
        pipeline = self._pipeline
        raw: list[Any]
        if pipeline is not None:
            script = self._lookup_request_script
            raw = await self._call("lookup", lambda: pipeline.evalsha(script, keys, args))
        else:
            raw = await self._call("lookup", lambda: self._lookup_request(keys=keys, args=args))
        return self._judged(Layer.REQUEST, raw)

    def _judged(self, layer: Layer, raw: list[Any]) -> Lookup:
        status = LookupStatus(int(raw[0]))
        if status is LookupStatus.UNVERIFIED:
            self._on_unverified(layer, Unverified.NO_LEASE)
            return Lookup(status)
        if len(raw) < 4:  # no request pointer: nothing read under the lease
            return Lookup(status)
        if self.replica is not None:
            applied = (int(raw[3]), int(raw[2]))
            if applied < self._seen:
                # An older dataset than one this process read (a restore or a failover the
                # worker has not repaired yet): serve nothing until it has caught up.
                self._on_unverified(layer, Unverified.REGRESSED)
                return Lookup(LookupStatus.UNVERIFIED)
            self._seen = applied
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
        keys = [
            self.keys.entry(product, layer, digest),
            self.keys.generations(product),
            self.keys.entry_index(product),
        ]
        if self.replica is not None:
            keys.append(self.replica.record)
        return keys

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
        """Increment a product's generations for one event (idempotent per dedupe key),
        outside the event log (benchmarks, admin purges): records no position."""
        keys, args = self._bump_call(BumpRequest(bump, event_id, spec_version))
        raw: list[Any] = await self._call("bump", lambda: self._bump(keys=keys, args=args))
        return _bump_result(bump, raw)

    async def bump_many(
        self, bumps: Sequence[BumpRequest], handled: Sequence[LogPosition] = ()
    ) -> list[BumpResult]:
        """Several bumps in one pipeline, one round trip; then, with replica keys, the
        highest ``handled`` position per partition (records that bumped nothing count).

        Bumps commute (increments, a max, set-if-absent markers), so their order inside
        the pipeline does not matter; a retried pipeline re-applies nothing twice. With
        replica keys every script first checks that the record still holds what this
        process recorded; if not, nothing of that partition is applied and
        ``ReplicaBehind`` is raised (the worker re-applies from the record's offset).
        """
        guarded = self.replica is not None
        if guarded:
            self._require_verified([b.position for b in bumps if b.position] + list(handled))
        last = _highest_per_partition(handled) if guarded else []

        async def run() -> list[Any]:
            if isinstance(self._client, RedisCluster):  # unguarded: bumps only
                return await self._run_scripts(self._bump, [self._bump_call(b) for b in bumps])
            # One script call for all the bumps (a single node holds every product's keys),
            # then the highest handled offsets: one round trip, two commands.
            scripted: list[tuple[Script, list[str], list[Any]]] = []
            if bumps:
                scripted.append((self._bump_batch_script, *self._bump_batch_call(bumps)))
            if last and self.replica is not None:
                args: list[Any] = []
                for position in last:
                    args += [position.field, position.offset, self._held[position.field]]
                scripted.append((self._applied_script, [self.replica.record], args))
            if not scripted:
                return []
            if self._pipeline is not None:
                replies = await self._pipeline.evalsha_many(scripted)
            else:
                replies = await self._evalsha_pipeline(self._client, scripted)
            return [*replies[0], *replies[1:]] if bumps else replies

        raw = await self._call("bump pipeline", run)
        behind: dict[str, int] = {}
        for request, result in zip(bumps, raw, strict=False):
            if int(result[0]) == -1 and request.position is not None:
                behind[request.position.field] = int(result[1])
        if last and int(raw[-1][0]) == -1:
            behind[_text(raw[-1][1])] = int(raw[-1][2])
        if behind:
            raise ReplicaBehind(behind, "Redis holds less of the log than was recorded")
        if guarded:
            for position in [b.position for b in bumps if b.position] + last:
                self._held[position.field] = max(self._held[position.field], position.offset)
        return [_bump_result(b.bump, r) for b, r in zip(bumps, raw, strict=False)]

    def _bump_keys_and_position(self, request: BumpRequest) -> tuple[list[str], list[Any]]:
        """A bump's generations hash and dedupe marker, and where its record sits in the
        log (``'', 0, 0`` unguarded or without a position) as the scripts take them."""
        bump, position = request.bump, request.position
        keys = [
            self.keys.generations(bump.product),
            self.keys.seen_event(bump.product, request.dedupe_key),
        ]
        where: list[Any] = ["", 0, 0]
        if self.replica is not None and position is not None:
            where = [position.field, position.offset, self._held[position.field]]
        return keys, where

    def _bump_call(self, request: BumpRequest) -> tuple[list[str], list[Any]]:
        keys, where = self._bump_keys_and_position(request)
        if self.replica is not None and request.position is not None:
            keys.append(self.replica.record)
        args = [self._dedupe_ttl_ms, self._generations_ttl_ms, request.spec_version, *where]
        return keys, [*args, *request.bump.fields]

    def _bump_batch_call(self, requests: Sequence[BumpRequest]) -> tuple[list[str], list[Any]]:
        """bump_batch.lua's keys and arguments: each request as ``_bump_call`` puts it."""
        guarded = self.replica is not None
        keys: list[str] = [self.replica.record if self.replica is not None else ""]
        args: list[Any] = [self._dedupe_ttl_ms, self._generations_ttl_ms, "1" if guarded else "0"]
        for request in requests:
            bump_keys, where = self._bump_keys_and_position(request)
            fields = request.bump.fields
            keys += bump_keys
            args += [request.spec_version, *where, len(fields), *fields]
        return keys, args

    def _require_verified(self, positions: Sequence[LogPosition]) -> None:
        unverified = {p.field: -1 for p in positions if p.field not in self._held}
        if unverified:
            raise ReplicaBehind(unverified, "partitions not verified against the log yet")

    async def verify(
        self,
        required: dict[str, int],
        *,
        own: Sequence[str],
        lease_ms: int,
        worker: str,
        new_epoch: bool = False,
    ) -> Verification:
        """Compare the record with the log (``required``: position field → the offset
        Redis must hold); set the coherence lease only if nothing is behind.

        ``own`` are the position fields this process applies: what it learns about them
        becomes what its bumps require the record to hold."""
        if self.replica is None:
            raise ValueError("verify needs replica keys")
        r = self.replica
        args: list[Any] = [lease_ms, worker, "1" if new_epoch else "0"]
        for field, offset in required.items():
            args += [field, offset]
        raw: list[Any] = await self._call(
            "verify", lambda: self._verify(keys=[r.record, r.lease, r.recovering], args=args)
        )
        behind = {_text(raw[i]): int(raw[i + 1]) for i in range(3, len(raw), 2)}
        for field in own:
            if field in required:
                self._held[field] = behind.get(field, required[field])
        return Verification(
            leased=bool(int(raw[0])), adopted=bool(int(raw[1])), epoch=int(raw[2]), behind=behind
        )

    async def block(self, field: str, worker: str) -> None:
        """Keep the lease off for a partition the log can no longer repair (an operator
        clears it: flush the prefix's keys, then delete the ``recovering`` field)."""
        if self.replica is None:
            raise ValueError("block needs replica keys")
        r = self.replica

        async def run() -> None:
            pipe = self._client.pipeline(transaction=True)
            pipe.hset(r.recovering, field, f"unrecoverable:{worker}")
            pipe.delete(r.lease)
            await pipe.execute()

        await self._call("block", run)

    async def trust(self, field: str, offset: int) -> None:
        """Accept that the record holds ``offset`` for ``field`` (before re-applying the
        log from there)."""
        self._held[field] = offset

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

    @staticmethod
    async def _evalsha_pipeline(
        client: Redis, calls: Sequence[tuple[Script, list[str], list[Any]]]
    ) -> list[Any]:
        """EVALSHA calls in one pipeline: one round trip. redis-py's script pipelines send
        ``SCRIPT EXISTS`` before every execute, a second round trip per batch; here a
        server that lost its scripts (a restart, a new instance) answers NOSCRIPT, and
        the scripts are loaded and those calls sent again, in their order."""
        pipe = client.pipeline(transaction=False)
        for script, keys, args in calls:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        results = list(await pipe.execute(raise_on_error=False))
        missing = [i for i, r in enumerate(results) if isinstance(r, NoScriptError)]
        if missing:
            for script in {calls[i][0].sha: calls[i][0] for i in missing}.values():
                await client.script_load(script.source)
            again = client.pipeline(transaction=False)
            for i in missing:
                script, keys, args = calls[i]
                again.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            for i, result in zip(missing, await again.execute(raise_on_error=False), strict=True):
                results[i] = result
        for result in results:
            if isinstance(result, Exception):
                raise result
        return results

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


def _highest_per_partition(positions: Sequence[LogPosition]) -> list[LogPosition]:
    highest: dict[str, LogPosition] = {}
    for p in positions:
        if p.field not in highest or p.offset > highest[p.field].offset:
            highest[p.field] = p
    return list(highest.values())


def _bump_result(bump: ProductBump, raw: list[Any]) -> BumpResult:
    if int(raw[0]) == 0:
        return BumpResult(applied=False)
    return BumpResult(applied=True, fields=bump.fields, reply=raw[1:])


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
