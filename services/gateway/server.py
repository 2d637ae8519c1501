"""The gateway's HTTP server: uvicorn (httptools, uvloop) with deadlines on slow clients.

uvicorn reaps idle keep-alive connections (``timeout_keep_alive``) and caps connections
(``limit_concurrency``: 503 beyond), but a connection that never sends a request, or
trickles its headers or its body, is held forever: a few hundred such connections were
enough to exhaust the gateway. Here every connection must deliver a request's headers
within ``header_timeout_s`` (from the connection, or from the request's first byte on a
kept-alive one) and its body within ``body_timeout_s`` after the headers; otherwise it
is closed. A request being answered (a long stream, say) has no deadline. Request line
and headers together are bounded to ``MAX_HEADER_BYTES`` (httptools has no such bound;
beyond it: 400 and the connection closed).

uvicorn writes a response's head and each body chunk with their own ``send`` system
call; here the writes of one event-loop turn leave together (``_CoalescedTransport``):
a cache hit is one write instead of two (three when streamed).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.core.errors import CachecohError

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 64 * 1024


class HeadersTooLarge(CachecohError):
    """Raised in a parser callback: httptools reports it as a parse error (then 400)."""


class _CoalescedTransport:
    """A transport whose writes are joined and handed on once per event-loop turn (the
    rest is the wrapped transport's; ``close`` sends what is pending first)."""

    __slots__ = ("_loop", "_out", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._out: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(bytes(data) if not isinstance(data, bytes) else data)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if out and not self._transport.is_closing():
            self._transport.write(out[0] if len(out) == 1 else b"".join(out))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._out = []
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _DeadlineProtocol(HttpToolsProtocol):
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    on_timeout: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        coalesced = _CoalescedTransport(transport, self.loop)
        super().connection_made(cast(asyncio.Transport, coalesced))
        self._deadline: asyncio.TimerHandle | None = None
        self._arm(self.header_timeout_s, "headers")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        if self._deadline is None:
            self._arm(self.header_timeout_s, "headers")

    def on_url(self, url: bytes) -> None:
        self._count_header_bytes(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_header_bytes(len(name) + len(value))
        super().on_header(name, value)

    def _count_header_bytes(self, size: int) -> None:
        self._header_bytes += size
        if self._header_bytes > MAX_HEADER_BYTES:
            raise HeadersTooLarge

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        self._arm(self.body_timeout_s, "body")

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float, stage: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expired, stage)

    def _disarm(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _expired(self, stage: str) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.debug("closing a connection that was too slow to send its %s", stage)
            if self.on_timeout is not None:
                self.on_timeout(stage)
            self.transport.close()


def deadline_protocol(
    *, header_timeout_s: float, body_timeout_s: float, on_timeout: Any = None
) -> type[HttpToolsProtocol]:
    """A uvicorn ``http`` protocol class with these deadlines."""
    return type(
        "GatewayHttpProtocol",
        (_DeadlineProtocol,),
        {
            "header_timeout_s": header_timeout_s,
            "body_timeout_s": body_timeout_s,
            "on_timeout": staticmethod(on_timeout) if on_timeout is not None else None,
        },
    )


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket with ``SO_REUSEPORT``: several gateway processes bind the same
    port and the kernel spreads new connections over them (the benchmark's workers)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
