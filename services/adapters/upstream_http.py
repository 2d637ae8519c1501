"""The upstream client: any OpenAI-compatible server (vLLM, the router, the offline engine).

httpx errors are translated here, once, into the gateway's upstream errors; streamed
answers are read with ``httpx-sse`` (a complete SSE parser) and yielded event by event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from httpx_sse import EventSource

from services.core.errors import CachecohError


class UpstreamError(CachecohError):
    """The upstream did not produce an answer."""


class UpstreamTimeout(UpstreamError):
    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        super().__init__(f"the upstream model server did not answer within {timeout_s:g} s")


class UpstreamUnavailable(UpstreamError):
    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"the upstream model server is unreachable ({detail})")


class UpstreamRejected(UpstreamError):
    """A non-2xx answer; relayed to the client as it came."""

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body
        super().__init__(f"the upstream answered {status}")


class UpstreamMalformed(UpstreamError):
    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"the upstream answer is not valid JSON ({detail})")


@dataclass(frozen=True, slots=True)
class UpstreamAnswer:
    body: bytes
    response: dict[str, Any]
    duration_s: float


class UpstreamStream:
    """An open streamed answer: :meth:`events` yields each SSE ``data`` string."""

    def __init__(self, response: httpx.Response, started: float, timeout_s: float) -> None:
        self._response = response
        self._started = started
        self._timeout_s = timeout_s
        self.finished_at: float | None = None

    @property
    def duration_s(self) -> float:
        return (self.finished_at or time.perf_counter()) - self._started

    async def events(self) -> AsyncIterator[str]:
        try:
            async for event in EventSource(self._response).aiter_sse():
                if event.data:
                    yield event.data
        except httpx.TimeoutException as exc:
            raise UpstreamTimeout(self._timeout_s) from exc
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(type(exc).__name__) from exc
        finally:
            self.finished_at = time.perf_counter()

    async def aclose(self) -> None:
        await self._response.aclose()


class HttpUpstream:
    def __init__(
        self, client: httpx.AsyncClient, base_url: str, *, timeout_s: float, api_key: str | None
    ) -> None:
        self._client = client
        self._url = base_url.rstrip("/") + "/v1/chat/completions"
        self._models_url = base_url.rstrip("/") + "/v1/models"
        self._timeout_s = timeout_s
        self._auth = {"authorization": f"Bearer {api_key}"} if api_key else {}

    def _headers(self, extra: Mapping[str, str]) -> dict[str, str]:
        return {"content-type": "application/json", **self._auth, **extra}

    async def complete(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> UpstreamAnswer:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeout_s):
                response = await self._client.post(
                    self._url, content=orjson.dumps(payload), headers=self._headers(headers or {})
                )
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise UpstreamTimeout(self._timeout_s) from exc
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(type(exc).__name__) from exc
        if response.status_code >= 300:
            raise UpstreamRejected(response.status_code, response.content)
        try:
            parsed = orjson.loads(response.content)
        except orjson.JSONDecodeError as exc:
            raise UpstreamMalformed(str(exc)[:120]) from exc
        if not isinstance(parsed, dict):
            raise UpstreamMalformed("not an object")
        return UpstreamAnswer(response.content, parsed, time.perf_counter() - started)

    async def open_stream(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> UpstreamStream:
        """Start a streamed call; raises before any byte is relayed if the upstream refuses."""
        started = time.perf_counter()
        request = self._client.build_request(
            "POST",
            self._url,
            content=orjson.dumps(payload),
            headers={**self._headers(headers or {}), "accept": "text/event-stream"},
        )
        try:
            async with asyncio.timeout(self._timeout_s):
                response = await self._client.send(request, stream=True)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise UpstreamTimeout(self._timeout_s) from exc
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(type(exc).__name__) from exc
        if response.status_code >= 300:
            body = await response.aread()
            await response.aclose()
            raise UpstreamRejected(response.status_code, body)
        return UpstreamStream(response, started, self._timeout_s)

    async def models(self) -> tuple[int, bytes]:
        try:
            response = await self._client.get(self._models_url, headers=self._auth)
        except httpx.TimeoutException as exc:
            raise UpstreamTimeout(self._timeout_s) from exc
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(type(exc).__name__) from exc
        return response.status_code, response.content
