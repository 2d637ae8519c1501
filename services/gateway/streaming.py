"""Relaying an upstream SSE stream to the client, and assembling it for the cache."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import orjson

from services.adapters.upstream_http import UpstreamError
from services.core.answers import SSE_DONE, StreamAssembly, sse_event
from services.gateway.ports import EventStream


def stream_error(exc: UpstreamError) -> bytes:
    """The error event that ends a stream the upstream broke off (status is already 200)."""
    return sse_event({"error": {"message": str(exc), "type": "upstream_error", "code": 502}})


def _event(data: str) -> bytes:
    return b"data: " + data.encode() + b"\n\n"


async def relay(stream: EventStream, on_close: Callable[[], None]) -> AsyncIterator[bytes]:
    """Every event as it came (a bypassed request: nothing is assembled or stored)."""
    try:
        async for data in stream.events():
            yield _event(data)
    except UpstreamError as exc:
        yield stream_error(exc)
    finally:
        await stream.aclose()
        on_close()


async def relay_and_fill(
    stream: EventStream,
    *,
    include_usage: bool,
    fill: Callable[[StreamAssembly], Awaitable[None]],
    on_close: Callable[[StreamAssembly], Awaitable[None]],
) -> AsyncIterator[bytes]:
    """Relay a miss's stream while assembling it; ``fill`` runs before ``[DONE]`` is sent
    (so the client's next request hits), ``on_close`` always, with what was assembled.

    The usage chunk the gateway asked for on the cache's behalf is not relayed unless
    the client asked for it too (``include_usage``).
    """
    assembly = StreamAssembly()
    relayable = True
    try:
        async for data in stream.events():
            if data == "[DONE]":
                if relayable:
                    await fill(assembly)
                yield SSE_DONE
                return
            try:
                chunk = orjson.loads(data)
            except orjson.JSONDecodeError:
                relayable = False
                yield _event(data)
                continue
            assembly.add(chunk)
            if not include_usage and not chunk.get("choices") and "usage" in chunk:
                continue
            yield _event(data)
    except UpstreamError as exc:
        yield stream_error(exc)
    finally:
        await stream.aclose()
        await on_close(assembly)
