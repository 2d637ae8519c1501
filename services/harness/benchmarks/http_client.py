"""A cheap keep-alive HTTP/1.1 client on asyncio (load generators: benchmarks and checks).

The load generator shares two cores with the gateway and Redis, so it must be cheap:
aiohttp's client costs about 300 µs of CPU per request here and caps any server near
3k req/s; pre-encoded requests on a bare protocol with the httptools response parser
cost a tenth of that. Bodies are kept (de-chunked by the parser), so callers can read an
answer's provenance; a response is one list append per body chunk.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import cast

import httptools
import httpx


@dataclass(frozen=True, slots=True)
class HttpReply:
    status: int
    #: Header names lower-cased; a repeated header keeps its last value.
    headers: dict[str, str]
    body: bytes
    seconds: float


class KeepAliveConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection; one request in flight at a time."""

    def __init__(self) -> None:
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[tuple[int, dict[str, str], bytes]] | None = None
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but implement it.
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self._parser.feed_data(data)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.decode().lower()] = value.decode()

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            body = self._body[0] if len(self._body) == 1 else b"".join(self._body)
            waiter.set_result((self._parser.get_status_code(), self._headers, body))

    @property
    def open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(ConnectionError("the server closed the connection"))

    def send(self, raw: bytes) -> asyncio.Future[tuple[int, dict[str, str], bytes]]:
        if self._transport is None:
            raise ConnectionError("the server closed the connection")
        self._headers = {}
        self._body = []
        self._waiter = asyncio.get_running_loop().create_future()
        self._transport.write(raw)
        return self._waiter

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class KeepAliveClient:
    """A pool of keep-alive connections to one server; requests are pre-encoded bytes."""

    def __init__(self, url: str, api_key: str) -> None:
        parsed = httpx.URL(url)
        self._host = parsed.host
        self._port = parsed.port or 80
        self._api_key = api_key
        self._idle: list[KeepAliveConnection] = []

    def request(
        self,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        api_key: str | None = None,
        path: str = "/v1/chat/completions",
    ) -> bytes:
        """A ``POST`` as raw bytes, authorised with ``api_key`` (default: the client's)."""
        lines = [
            f"POST {path} HTTP/1.1",
            f"host: {self._host}:{self._port}",
            f"authorization: Bearer {api_key or self._api_key}",
            "content-type: application/json",
            f"content-length: {len(body)}",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    async def _connection(self) -> KeepAliveConnection:
        # The server reaps connections idle for its keep-alive timeout (a long phase at
        # one client leaves the others idle): those are dropped here, not written to.
        while self._idle:
            connection = self._idle.pop()
            if connection.open:
                return connection
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_connection(KeepAliveConnection, self._host, self._port)
        return protocol

    async def close(self) -> None:
        for connection in self._idle:
            connection.close()
        self._idle.clear()

    async def exchange(self, raw: bytes) -> HttpReply:
        """Send one request and read its whole response (a broken connection is dropped)."""
        connection = await self._connection()
        started = time.perf_counter()
        try:
            status, headers, body = await connection.send(raw)
        except BaseException:
            connection.close()
            raise
        elapsed = time.perf_counter() - started
        if headers.get("connection", "").lower() == "close":
            connection.close()
        else:
            self._idle.append(connection)
        return HttpReply(status, headers, body, elapsed)

    async def post(self, raw: bytes) -> tuple[int, dict[str, str], float]:
        reply = await self.exchange(raw)
        return reply.status, reply.headers, reply.seconds
