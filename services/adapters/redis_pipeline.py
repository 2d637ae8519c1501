"""One pipelined Redis connection for the gateway's hit-path lookups and the coherence
worker's bump batches (single-node Redis).

redis-py takes a pooled connection per call, wraps each read in a timeout, runs its
retry, health-check, re-auth and observability hooks, and writes each command with its
own ``send`` system call: most of a cache hit's CPU time was spent there. Here every
call is written to one connection (the calls of one event-loop turn in one write) and
Redis answers them in order, each reply parsed by hiredis and handed to its waiter.

Still one round trip per call to Redis, which decides: nothing is kept in between.
Errors are redis-py's (``ConnectionError``, ``TimeoutError``, ``ResponseError``), so the
stores translate them into ``StoreUnavailable`` as for any other Redis call. A call
waits at most ``timeout_s``: the oldest unanswered call past it drops the connection,
failing every call on it (the next call reconnects). A connection found closed when a
call is written is replaced once (lookups are idempotent; so are bumps: deduped by
event, offsets recorded as a maximum).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import hiredis
from redis.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Arg = str | bytes | int


def _encode(parts: Sequence[Arg]) -> bytes:
    """One command in RESP, by hiredis (C): a batch's bump call has a hundred arguments,
    three times faster than ``_encode_parts``'s loop."""
    # hiredis's stub types the argument as a one-item tuple; it takes any number.
    return hiredis.pack_command(tuple(parts))  # type: ignore[arg-type,no-any-return]


def _encode_parts(parts: Sequence[Arg]) -> bytes:
    out: list[bytes] = []
    for part in parts:
        raw = part if isinstance(part, bytes) else str(part).encode()
        out += (b"$", str(len(raw)).encode(), b"\r\n", raw, b"\r\n")
    return b"".join(out)


@dataclass(frozen=True, slots=True)
class RedisAddress:
    host: str | None
    port: int
    path: str | None
    db: int
    username: str | None
    password: str | None

    @classmethod
    def of(cls, url: str) -> RedisAddress | None:
        """The address of a ``redis://`` or ``unix://`` URL; None for what this client
        does not speak (TLS: ``rediss://``), which stays on redis-py."""
        if not url.startswith(("redis://", "unix://")):
            return None
        parsed: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        return cls(
            host=parsed.get("host"),
            port=int(parsed.get("port") or 6379),
            path=parsed.get("path"),
            db=int(parsed.get("db") or 0),
            username=parsed.get("username"),
            password=parsed.get("password"),
        )


class _Connection(asyncio.Protocol):
    """Replies are matched to calls in the order the calls were written."""

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._reader = hiredis.Reader()
        self._transport: asyncio.Transport | None = None
        self._loop = asyncio.get_running_loop()
        #: (waiter, deadline) per call written and not yet answered.
        self._pending: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._out: list[bytes] = []
        self._watchdog: asyncio.TimerHandle | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but implement it.
        self._transport = cast(asyncio.Transport, transport)

    def call(self, command: bytes) -> asyncio.Future[Any]:
        if self.closed or self._transport is None:
            raise RedisConnectionError("redis connection closed")
        loop = self._loop
        if not self._pending and not self._out:
            # Nothing in flight: nothing to batch with, so no loop turn is waited for (a
            # lone client's hit); calls that follow in this turn are joined as below.
            self._transport.write(command)
        else:
            if not self._out:
                loop.call_soon(self._flush)
            self._out.append(command)
        return self._expect_reply(loop.time() + self._timeout_s)

    def call_many(self, commands: Sequence[bytes]) -> list[asyncio.Future[Any]]:
        """Calls known together (a batch's scripts): written in one write when nothing
        is in flight, not the first at once and the rest a loop turn later."""
        if len(commands) == 1 or self._pending or self._out:
            return [self.call(command) for command in commands]
        if self.closed or self._transport is None:
            raise RedisConnectionError("redis connection closed")
        deadline = self._loop.time() + self._timeout_s
        self._transport.write(b"".join(commands))
        return [self._expect_reply(deadline) for _ in commands]

    def _expect_reply(self, deadline: float) -> asyncio.Future[Any]:
        """A waiter for the next reply not yet waited for, due by ``deadline``, with the
        watchdog armed (a command was just written or queued)."""
        waiter: asyncio.Future[Any] = self._loop.create_future()
        self._pending.append((waiter, deadline))
        if self._watchdog is None:
            self._watchdog = self._loop.call_later(self._timeout_s, self._check)
        return waiter

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self._transport is not None and not self.closed and out:
            self._transport.write(out[0] if len(out) == 1 else b"".join(out))

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        pending = self._pending
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self._fail(RedisConnectionError(f"redis protocol error: {exc}"))
                return
            if reply is False:
                return
            if not pending:
                self._fail(RedisConnectionError("redis sent a reply nobody asked for"))
                return
            waiter, _ = pending.popleft()
            if waiter.done():  # its caller was cancelled
                continue
            if isinstance(reply, hiredis.ReplyError):
                waiter.set_exception(ResponseError(str(reply)))
            else:
                waiter.set_result(reply)

    def _check(self) -> None:
        self._watchdog = None
        if not self._pending:
            return
        deadline = self._pending[0][1]
        now = self._loop.time()
        if now >= deadline:
            self._fail(RedisTimeoutError(f"redis did not answer within {self._timeout_s} s"))
            return
        self._watchdog = self._loop.call_later(deadline - now, self._check)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"redis connection lost: {exc or 'closed'}"))

    def _fail(self, error: Exception) -> None:
        self.closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        pending, self._pending = self._pending, deque()
        for waiter, _ in pending:
            if not waiter.done():
                waiter.set_exception(error)
        if self._transport is not None:
            self._transport.abort()
            self._transport = None

    def close(self) -> None:
        self._fail(RedisConnectionError("redis connection closed by the gateway"))


class PipelinedRedis:
    """``EVALSHA`` over one pipelined connection, opened on first use (and again after
    it failed), in the running event loop."""

    def __init__(self, address: RedisAddress, *, timeout_s: float) -> None:
        self._address = address
        self._timeout_s = timeout_s
        self._connection: _Connection | None = None
        self._connecting: asyncio.Future[_Connection] | None = None

    @classmethod
    def from_url(cls, url: str, *, timeout_s: float) -> PipelinedRedis | None:
        address = RedisAddress.of(url)
        return cls(address, timeout_s=timeout_s) if address is not None else None

    async def evalsha(self, script: Script, keys: Sequence[Arg], args: Sequence[Arg] = ()) -> Any:
        """Run a script by its SHA1; loaded with ``EVAL`` when Redis does not know it."""
        parts = len(keys) + len(args)
        head = script.heads.get((len(keys), parts))
        if head is None:
            # "EVALSHA <sha> <numkeys>" encoded once per shape of call
            head = b"*%d\r\n" % (parts + 3) + _encode_parts(["EVALSHA", script.sha, len(keys)])
            script.heads[(len(keys), parts)] = head
        command = head + _encode_parts(keys) + _encode_parts(args)
        try:
            return await self._call(command)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self._call(_encode(["EVAL", script.source, len(keys), *keys, *args]))

    async def evalsha_many(
        self, calls: Sequence[tuple[Script, Sequence[Arg], Sequence[Arg]]]
    ) -> list[Any]:
        """Several scripts in one write and one round trip, replies in call order; the
        calls of a script Redis does not know are sent again with ``EVAL``. The first
        error reply is raised once every reply is in."""
        replies = await self._call_many(
            [_encode(["EVALSHA", s.sha, len(keys), *keys, *args]) for s, keys, args in calls]
        )
        missing = [
            i
            for i, reply in enumerate(replies)
            if isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT")
        ]
        if missing:
            again = await self._call_many(
                [
                    _encode(
                        ["EVAL", calls[i][0].source, len(calls[i][1]), *calls[i][1], *calls[i][2]]
                    )
                    for i in missing
                ]
            )
            for i, reply in zip(missing, again, strict=True):
                replies[i] = reply
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    async def _call_many(self, commands: Sequence[bytes]) -> list[Any]:
        """Replies in order; an error reply is returned, a failed connection raised."""
        connection = self._connection
        if connection is None or connection.closed or connection._loop is not _running():
            connection = await self._connect()
        try:
            waiters = connection.call_many(commands)
        except RedisConnectionError:  # found closed before anything was written
            connection = await self._connect()
            waiters = connection.call_many(commands)
        replies: list[Any] = []
        try:
            for waiter in waiters:
                try:
                    replies.append(await waiter)
                except ResponseError as exc:
                    replies.append(exc)
        except BaseException:
            for waiter in waiters:  # the connection failed (all of them) or we were cancelled
                if not waiter.done():
                    waiter.cancel()
                elif not waiter.cancelled():
                    waiter.exception()  # retrieved: one error is raised, not one per call
            raise
        return replies

    async def execute(self, *parts: Arg) -> Any:
        """One command and its reply (the connection's own checks and tests)."""
        return await self._call(_encode(parts))

    async def _call(self, command: bytes) -> Any:
        connection = self._connection
        # ``is_running``, not ``get_running_loop()``: that one costs a getpid system call.
        if connection is None or connection.closed or not connection._loop.is_running():
            connection = await self._connect()
            return await connection.call(command)
        try:
            waiter = connection.call(command)
        except RedisConnectionError:
            connection = await self._connect()
            waiter = connection.call(command)
        return await waiter

    async def _connect(self) -> _Connection:
        if self._connecting is not None and self._connecting.get_loop() is _running():
            return await asyncio.shield(self._connecting)
        loop = _running()
        self._connecting = loop.create_future()
        try:
            connection = await asyncio.wait_for(self._open(), self._timeout_s)
        except (OSError, TimeoutError) as exc:
            error = RedisConnectionError(f"cannot connect to redis: {exc or type(exc).__name__}")
            self._connecting.set_exception(error)
            self._connecting.exception()  # retrieved: waiters get it through shield
            self._connecting = None
            raise error from exc
        except BaseException:
            self._connecting.cancel()
            self._connecting = None
            raise
        self._connection = connection
        self._connecting.set_result(connection)
        self._connecting = None
        return connection

    async def _open(self) -> _Connection:
        loop, a = _running(), self._address
        timeout_s = self._timeout_s
        if a.path is not None:
            _, connection = await loop.create_unix_connection(
                lambda: _Connection(timeout_s), a.path
            )
        else:
            _, connection = await loop.create_connection(
                lambda: _Connection(timeout_s), a.host or "127.0.0.1", a.port
            )
        if a.password is not None:
            auth = ["AUTH", a.username, a.password] if a.username else ["AUTH", a.password]
            await connection.call(_encode(auth))
        if a.db:
            await connection.call(_encode(["SELECT", a.db]))
        return connection

    async def aclose(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


@dataclass(frozen=True, slots=True)
class Script:
    source: str
    sha: str
    #: The encoded head of an ``EVALSHA`` of this script, per (keys, keys + arguments).
    heads: dict[tuple[int, int], bytes] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, source: str) -> Script:
        return cls(source, hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest())


def _running() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()
