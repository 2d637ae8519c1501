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
call; here the writes of one event-loop turn leave together (``_CoalescedTransport``),
and a response leaves as soon as it is complete: a cache hit is one write instead of two
(three when streamed), made in the turn that produced it. The deadlines (and uvicorn's
keep-alive timeout) are times on the connection checked by one sweep per server, not
timers per request, and the response head is checked with two ``bytes.translate`` calls
instead of two regular-expression searches per header (``_GatewayCycle``). The
overridden uvicorn methods follow uvicorn 0.54 line for line otherwise (pinned in
pyproject.toml).
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import urllib.parse
from typing import Any, ClassVar, cast

import httptools
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)
from uvicorn.protocols.utils import get_client_addr, get_path_with_query_string

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

    def flush(self) -> None:
        if self._out:
            self._flush()

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._out = []
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _forbidden_bytes(pattern: re.Pattern[bytes]) -> bytes:
    """The bytes one of uvicorn's header patterns (a class of single bytes) matches."""
    return bytes(b for b in range(256) if pattern.fullmatch(bytes([b])))


#: uvicorn's ``HEADER_RE`` and ``HEADER_VALUE_RE``, as the bytes they match.
FORBIDDEN_IN_HEADER_NAMES = _forbidden_bytes(HEADER_RE)
FORBIDDEN_IN_HEADER_VALUES = _forbidden_bytes(HEADER_VALUE_RE)


class _GatewayCycle(RequestResponseCycle):
    """uvicorn's request-response cycle with a cheaper check of the response head:
    uvicorn runs two regular-expression searches per header (about 7 % of a hit's
    instructions with a hit's dozen headers); its patterns match single forbidden bytes,
    so deleting those bytes (``bytes.translate``) from the names joined by ``-`` and the
    values joined by a tab (both allowed) finds exactly what the searches would.
    Otherwise uvicorn's ``send``, line for line."""

    async def send(self, message: Any) -> None:
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected:
            return
        if self.response_started:
            self._send_body(message)
            return
        if message["type"] != "http.response.start":
            raise RuntimeError(
                f"Expected ASGI message 'http.response.start', but got '{message['type']}'."
            )
        self.response_started = True
        self.waiting_for_100_continue = False
        status_code = message["status"]
        headers = self.default_headers + list(message.get("headers", []))
        if self.access_log:
            self.access_logger.info(
                '%s - "%s %s HTTP/%s" %d',
                get_client_addr(self.scope),
                self.scope["method"],
                get_path_with_query_string(self.scope),
                self.scope["http_version"],
                status_code,
            )
        names = b"-".join([name for name, _ in headers])
        if len(names.translate(None, FORBIDDEN_IN_HEADER_NAMES)) != len(names):
            raise RuntimeError("Invalid HTTP header name.")
        values = b"\t".join([value for _, value in headers])
        if len(values.translate(None, FORBIDDEN_IN_HEADER_VALUES)) != len(values):
            raise RuntimeError("Invalid HTTP header value.")
        content = [STATUS_LINE[status_code]]
        has_connection_close = False
        for name, value in headers:
            name = name.lower()
            if name == b"content-length" and self.chunked_encoding is None:
                self.expected_content_length = int(value.decode())
                self.chunked_encoding = False
            elif name == b"transfer-encoding" and value.lower() == b"chunked":
                self.expected_content_length = 0
                self.chunked_encoding = True
            elif name == b"connection":
                connection = [token.lower().strip() for token in value.split(b",")]
                if b"close" in connection:
                    self.keep_alive = False
                    has_connection_close = True
            content.extend([name, b": ", value, b"\r\n"])
        if not self.keep_alive and not has_connection_close:
            content.append(b"connection: close\r\n")
        if (
            self.chunked_encoding is None
            and self.scope["method"] != "HEAD"
            and status_code not in (204, 304)
        ):
            self.chunked_encoding = True
            content.append(b"transfer-encoding: chunked\r\n")
        content.append(b"\r\n")
        self.transport.write(b"".join(content))

    def _send_body(self, message: Any) -> None:
        # uvicorn's body branch, unchanged (a plain method: no second coroutine per send).
        if self.response_complete:
            raise RuntimeError(
                f"Unexpected ASGI message '{message['type']}' sent, after response already "
                "completed."
            )
        if message["type"] != "http.response.body":
            raise RuntimeError(
                f"Expected ASGI message 'http.response.body', but got '{message['type']}'."
            )
        body = message.get("body", b"")
        more_body = message.get("more_body", False)
        if self.scope["method"] == "HEAD":
            self.expected_content_length = 0
        elif self.chunked_encoding:
            content = [b"%x\r\n" % len(body), body, b"\r\n"] if body else []
            if not more_body:
                content.append(b"0\r\n\r\n")
            self.transport.write(b"".join(content))
        else:
            if len(body) > self.expected_content_length:
                raise RuntimeError("Response content longer than Content-Length")
            self.expected_content_length -= len(body)
            self.transport.write(body)
        if not more_body:
            if self.expected_content_length != 0:
                raise RuntimeError("Response content shorter than Content-Length")
            self.response_complete = True
            self.message_event.set()
            if not self.keep_alive:
                self.transport.close()
            self.on_response()


class _DeadlineProtocol(HttpToolsProtocol):
    """Deadlines are times kept on the connection and checked by one sweep of all of a
    server's connections a few times per shortest timeout (``_Sweeper``): setting and
    cancelling a timer per request stage (two, plus uvicorn's keep-alive timer after each
    response) was per-hit work; a deadline is now one float per stage."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    on_timeout: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._coalesced = _CoalescedTransport(transport, self.loop)
        super().connection_made(cast(asyncio.Transport, self._coalesced))
        self._deadline_at: float | None = None
        self._stage = "headers"
        self._arm(self.header_timeout_s, "headers")
        _Sweeper.watch(self)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        if self._stage != "headers":  # a kept-alive connection's next request
            self._arm(self.header_timeout_s, "headers")

    def on_url(self, url: bytes) -> None:
        self._count_header_bytes(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        # Counted here and uvicorn's ``on_header`` inlined: this runs per request header.
        self._header_bytes += len(name) + len(value)
        if self._header_bytes > MAX_HEADER_BYTES:
            raise HeadersTooLarge
        name = name.lower()
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))

    def _count_header_bytes(self, size: int) -> None:
        self._header_bytes += size
        if self._header_bytes > MAX_HEADER_BYTES:
            raise HeadersTooLarge

    def on_headers_complete(self) -> None:
        # uvicorn's, building the cycle with the cheaper head check (``_GatewayCycle``).
        parser = self.parser
        http_version = parser.get_http_version()
        self.scope["method"] = parser.get_method().decode("ascii")
        if http_version != "1.1":
            self.scope["http_version"] = http_version
        if parser.should_upgrade() and self._should_upgrade():
            return
        parsed_url = httptools.parse_url(self.url)
        raw_path = parsed_url.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        self.scope["path"] = self.root_path + path
        self.scope["raw_path"] = self.root_path.encode("ascii") + raw_path
        self.scope["query_string"] = parsed_url.query or b""
        app = self.app
        limit = self.limit_concurrency
        if limit is not None and (len(self.connections) >= limit or len(self.tasks) >= limit):
            app = service_unavailable
            self.logger.warning("Exceeded concurrency limit.")
        existing_cycle = self.cycle
        self.cycle = _GatewayCycle(
            scope=self.scope,
            transport=self.transport,
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            message_event=asyncio.Event(),
            expect_100_continue=self.expect_100_continue,
            keep_alive=http_version != "1.0" and parser.should_keep_alive(),
            on_response=self.on_response_complete,
        )
        if existing_cycle is None or existing_cycle.response_complete:
            self._start_asgi_task(self.cycle, app)
        else:  # pipelined requests wait for the one before
            self.flow.pause_reading()
            self.pipeline.appendleft((self.cycle, app))
        self._arm(self.body_timeout_s, "body")

    def on_message_complete(self) -> None:
        cycle = self.cycle
        if cycle is not None and cycle.response_complete and not self.pipeline:
            # answered before its body had all arrived (a 413): now idle, kept alive
            self._arm(self.timeout_keep_alive, "keep_alive")
        else:
            self._deadline_at = None
            self._stage = "answering"
        super().on_message_complete()

    def on_response_complete(self) -> None:
        # The response is whole: it leaves now, not a loop turn later.
        self._coalesced.flush()
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        elif self._stage == "answering":
            # uvicorn's keep-alive timeout, as a deadline instead of a timer per response
            # (a request still sending its body keeps its body deadline).
            self._arm(self.timeout_keep_alive, "keep_alive")

    def connection_lost(self, exc: Exception | None) -> None:
        self._deadline_at = None
        super().connection_lost(exc)

    def _arm(self, seconds: float, stage: str) -> None:
        self._deadline_at = self.loop.time() + seconds
        self._stage = stage

    def expire_if_due(self, now: float) -> None:
        deadline = self._deadline_at
        if deadline is None or now < deadline:
            return
        self._deadline_at = None
        if self.transport.is_closing():
            return
        if self._stage == "keep_alive":
            self.transport.close()  # an idle kept-alive connection, as uvicorn reaps it
            return
        log.debug("closing a connection that was too slow to send its %s", self._stage)
        if self.on_timeout is not None:
            self.on_timeout(self._stage)
        self.transport.close()


class _Sweeper:
    """One timer per server (its protocol class): every ``interval`` (a quarter of the
    shortest timeout, at most 1 s) it closes the connections past their deadline; it
    stops while the server has no connections."""

    _running: ClassVar[dict[type, _Sweeper]] = {}

    def __init__(self, protocol: _DeadlineProtocol) -> None:
        self.loop = protocol.loop
        self._connections = protocol.connections
        self._kind = type(protocol)
        shortest = min(
            protocol.header_timeout_s, protocol.body_timeout_s, protocol.timeout_keep_alive
        )
        self._interval = min(1.0, max(0.01, shortest / 4))
        self._timer = self.loop.call_later(self._interval, self._sweep)

    @classmethod
    def watch(cls, protocol: _DeadlineProtocol) -> None:
        running = cls._running.get(type(protocol))
        if running is None or running.loop is not protocol.loop or running.loop.is_closed():
            cls._running[type(protocol)] = cls(protocol)

    def _sweep(self) -> None:
        if not self._connections:
            if self._running.get(self._kind) is self:
                del self._running[self._kind]
            return
        now = self.loop.time()
        for connection in list(self._connections):
            if isinstance(connection, _DeadlineProtocol):
                connection.expire_if_due(now)
        self._timer = self.loop.call_later(self._interval, self._sweep)


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
