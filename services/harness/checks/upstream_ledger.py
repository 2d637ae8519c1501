"""A recording pass-through between the gateway and the engine (the checks' witness).

Every chat completion the gateway sends upstream passes through here and leaves one
ledger line: when it arrived, a tag of the ``cache_salt`` it carried (SHA-256, 16 hex: the
salt itself is a derived secret), whether it streamed, the upstream status, and the
completion id the engine gave the answer. The engine's ids are unique per call and the
gateway serves cached answers byte for byte, so a served answer's id names the upstream
call, and so the tenant, it was made for.

Bodies are forwarded, never kept or logged: requests the gateway bypasses carry the
client's personal data upstream, and this process's log is scanned like every other.

Run as ``python -m services.harness.checks.upstream_ledger '{"upstream_url": ..., "port": ...}'``;
``GET /ledger`` returns the lines as JSON.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import httpx
import orjson
from starlette.types import Receive, Scope, Send

from services.gateway.app import read_body

CHAT_PATH = "/v1/chat/completions"
LEDGER_PATH = "/ledger"
_COMPLETION_ID = re.compile(rb'"id"\s*:\s*"(chatcmpl-[^"]+)"')
#: How far into a response the completion id is looked for.
_ID_SEARCH_BYTES = 16384
_HOP_BY_HOP = frozenset(
    {b"host", b"content-length", b"connection", b"transfer-encoding", b"keep-alive"}
)


def salt_tag(salt: str) -> str:
    """What the ledger records of a ``cache_salt``."""
    return hashlib.sha256(salt.encode()).hexdigest()[:16]


def completion_id(body: bytes) -> str | None:
    """The first completion id in a chat completion or an SSE stream of chunks."""
    match = _COMPLETION_ID.search(body)
    return match[1].decode() if match is not None else None


def answer_origin(headers: Mapping[str, str], body: bytes) -> str | None:
    """The upstream completion a gateway answer came from: ``X-Cache-Origin`` (a hit's
    body carries an id of its own), else the body's id (misses, bypasses)."""
    return headers.get("x-cache-origin") or completion_id(body)


@dataclass(frozen=True, slots=True)
class LedgerLine:
    arrived_at: float
    salt_tag: str | None
    stream: bool
    status: int
    completion_id: str | None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> LedgerLine:
        return cls(
            arrived_at=float(raw["arrived_at"]),
            salt_tag=raw.get("salt_tag"),
            stream=bool(raw["stream"]),
            status=int(raw["status"]),
            completion_id=raw.get("completion_id"),
        )


def _request_facts(body: bytes) -> tuple[str | None, bool]:
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None, False
    if not isinstance(payload, dict):
        return None, False
    salt = payload.get("cache_salt")
    return (salt_tag(salt) if isinstance(salt, str) else None), payload.get("stream") is True


class UpstreamLedgerApp:
    """ASGI pass-through that records chat completions (see module doc)."""

    def __init__(self, upstream_url: str) -> None:
        self.upstream_url = upstream_url.rstrip("/")
        self.lines: list[LedgerLine] = []
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(120.0, connect=5.0),
                # An idle connection is dropped well before the engine's (uvicorn's) 5 s
                # keep-alive timeout: reusing one the server is closing fails the call.
                limits=httpx.Limits(
                    max_connections=512, max_keepalive_connections=512, keepalive_expiry=2.0
                ),
            )
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["path"] == LEDGER_PATH and scope["method"] == "GET":
            body = orjson.dumps([asdict(line) for line in self.lines])
            await _respond(send, 200, [(b"content-type", b"application/json")], body)
            return
        await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        arrived_at = time.time()
        body = await read_body(receive)
        recorded = scope["path"] == CHAT_PATH and scope["method"] == "POST"
        tag, stream = _request_facts(body) if recorded else (None, False)
        url = self.upstream_url + scope["path"]
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k not in _HOP_BY_HOP]
        client = self._http()
        request = client.build_request(scope["method"], url, headers=headers, content=body)
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError:
            if recorded:
                self.lines.append(LedgerLine(arrived_at, tag, stream, 502, None))
            await _respond(send, 502, [(b"content-type", b"text/plain")], b"upstream unreachable")
            return
        out_headers = [
            (k.lower(), v) for k, v in response.headers.raw if k.lower() not in _HOP_BY_HOP
        ]
        found: str | None = None
        head = b""
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": out_headers,
                }
            )
            async for chunk in response.aiter_raw():
                if recorded and found is None and len(head) < _ID_SEARCH_BYTES:
                    head += chunk  # an id split across two chunks is still found
                    found = completion_id(head)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()
            if recorded:
                self.lines.append(LedgerLine(arrived_at, tag, stream, response.status_code, found))


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def read_ledger(url: str, timeout_s: float = 30.0) -> list[LedgerLine]:
    """The ledger of a running pass-through."""
    response = httpx.get(url.rstrip("/") + LEDGER_PATH, timeout=timeout_s)
    response.raise_for_status()
    return [LedgerLine.from_dict(raw) for raw in response.json()]


def serve(settings: dict[str, Any]) -> None:
    import importlib.util

    import uvicorn

    uvicorn.run(
        UpstreamLedgerApp(str(settings["upstream_url"])),
        host=str(settings.get("host", "127.0.0.1")),
        port=int(settings["port"]),
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        http="httptools" if importlib.util.find_spec("httptools") else "h11",
        log_level="warning",
        access_log=False,
        # Longer than the gateway's idle-connection expiry (httpx: 5 s), so the gateway
        # never reuses a connection this server is closing.
        timeout_keep_alive=75,
    )


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]))
