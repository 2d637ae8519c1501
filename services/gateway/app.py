"""The gateway's HTTP surface: thin routes over ``GatewayService`` and ``AdminService``.

Errors raised by the service are translated here, once, into OpenAI-style error bodies
(the ``openai`` client raises the matching exception for each status).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
from fastapi import Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Message, Receive, Scope, Send

from services.adapters.upstream_http import (
    HttpUpstream,
    UpstreamMalformed,
    UpstreamRejected,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from services.core.answer_language import CONTENT_LANGUAGE_HEADER
from services.core.cache_control import (
    NAMESPACE_HEADER,
    TAGS_HEADER,
    TTL_HEADER,
    parse_cache_controls,
)
from services.core.chat_request import InvalidRequest
from services.core.errors import CachecohError, StoreUnavailable
from services.core.openai_contract import error_body
from services.gateway.admin import AdminService
from services.gateway.auth import AdminGuard, TenantDirectory
from services.gateway.dashboard import DashboardSource, dashboard_html
from services.gateway.errors import (
    BodyTooLarge,
    BreakerOpen,
    RateLimited,
    Unauthorized,
    UnknownCacheKey,
)
from services.gateway.metrics import GatewayMetrics
from services.gateway.openapi import describe_routes
from services.gateway.service import GatewayService

log = logging.getLogger(__name__)
JSON = "application/json"


def error_response(
    status: int,
    message: str,
    error_type: str,
    *,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    code: str | None = None,
) -> Response:
    # OpenAI's error object: ``code`` is a string or null, never the HTTP status.
    body = error_body(message, error_type=error_type, param=param, code=code)
    return Response(orjson.dumps(body), status_code=status, media_type=JSON, headers=headers)


def _translate(exc: CachecohError) -> Response:
    if isinstance(exc, InvalidRequest):
        return error_response(400, str(exc), "invalid_request_error", param=exc.field)
    if isinstance(exc, BodyTooLarge):
        # The rest of the body is discarded as it arrives (never buffered), so the client
        # can finish sending and read this; the body deadline bounds how long that takes.
        return error_response(413, str(exc), "invalid_request_error")
    if isinstance(exc, UnknownCacheKey):
        return error_response(400, str(exc), "invalid_request_error", param="key")
    if isinstance(exc, Unauthorized):
        return error_response(401, exc.message, "authentication_error", code="invalid_api_key")
    if isinstance(exc, RateLimited):
        return error_response(
            429,
            str(exc),
            "rate_limit_exceeded",
            headers={"retry-after": str(exc.retry_after_s)},
            code="rate_limit_exceeded",
        )
    if isinstance(exc, BreakerOpen):
        return error_response(
            503, exc.message, "service_unavailable", headers={"retry-after": str(exc.retry_after_s)}
        )
    if isinstance(exc, UpstreamTimeout):
        return error_response(504, str(exc), "upstream_timeout")
    if isinstance(exc, UpstreamRejected):
        return Response(exc.body, status_code=exc.status, media_type=JSON)
    if isinstance(exc, UpstreamUnavailable | UpstreamMalformed):
        return error_response(502, str(exc), "upstream_error")
    if isinstance(exc, StoreUnavailable):
        # Only admin operations get here: the request path fails open instead.
        return error_response(503, "the cache store (Redis) is unavailable", "store_unavailable")
    return error_response(500, "internal error", "internal_error")


async def _cachecoh_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, CachecohError)
    return _translate(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404/405 (unknown route, wrong method) as OpenAI error objects."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        message = f"Unknown request URL: {request.method} {request.url.path}."
        return error_response(404, message, "invalid_request_error", code="unknown_url")
    if exc.status_code == 405:
        message = f"Method {request.method} is not allowed on {request.url.path}."
        return error_response(405, message, "invalid_request_error", code="method_not_allowed")
    return error_response(exc.status_code, str(exc.detail), "invalid_request_error")


async def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return error_response(
        400, f"{where}: {first.get('msg', 'invalid')}", "invalid_request_error", param=where
    )


class SwitchChange(BaseModel):
    # Strict: {"enabled": "no"} is a 400, never coerced to false.
    model_config = ConfigDict(strict=True, extra="forbid")

    enabled: bool


class PurgeRequest(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    tags: list[Annotated[str, Field(min_length=3, max_length=256)]] = Field(
        min_length=1, max_length=1000
    )


@dataclass(frozen=True)
class GatewayParts:
    """Everything the routes need, built by the composition root."""

    service: GatewayService
    admin: AdminService
    tenants: TenantDirectory
    guard: AdminGuard
    metrics: GatewayMetrics
    upstream: HttpUpstream
    min_ttl_s: int
    max_ttl_s: int
    redis_ping: Callable[[], Any]
    dashboard: DashboardSource | None = None
    max_body_bytes: int = 1024 * 1024


class ChatCompletionsApp:
    """The ASGI application: ``POST /v1/chat/completions`` is served here directly, the
    rest (models, health, metrics, admin) by the FastAPI app behind it.

    The chat route is the hit path, run thousands of times a second on one core, so it
    skips Starlette's request/response objects, routing and exception middleware (about
    a third of a hit's CPU time when measured); it is still only a thin adapter: read
    headers and body, call the service, write the reply.
    """

    def __init__(self, parts: GatewayParts, fastapi_app: FastAPI) -> None:
        self.parts = parts
        self.fastapi = fastapi_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            limit = self.parts.max_body_bytes
            if _declared_length(scope) > limit:
                # Refused before a byte of the body is read.
                self.parts.metrics.rejected_requests.labels("body_too_large").inc()
                await _send_response(send, _translate(BodyTooLarge(limit)))
                return
            if scope["path"] == CHAT_PATH and scope["method"] == "POST":
                await self._chat(scope, receive, send)
                return
            receive = _bounded(receive, limit)
        await self.fastapi(scope, receive, send)

    async def _chat(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name in _CHAT_HEADERS:
                headers[name] = value
        try:
            tenant, client = self.parts.tenants.identify(_header(headers, b"authorization"))
            controls = parse_cache_controls(
                _header(headers, b"cache-control"),
                _header(headers, TTL_HEADER.encode()),
                _header(headers, NAMESPACE_HEADER.encode()),
                min_ttl_s=self.parts.min_ttl_s,
                max_ttl_s=self.parts.max_ttl_s,
                tags=_header(headers, TAGS_HEADER.encode()),
                content_language=_header(headers, CONTENT_LANGUAGE_HEADER.encode()),
            )
            raw = await read_body(receive, max_bytes=self.parts.max_body_bytes)
            reply = await self.parts.service.chat(tenant, raw, controls, client=client)
        except CachecohError as exc:
            if isinstance(exc, BodyTooLarge):
                self.parts.metrics.rejected_requests.labels("body_too_large").inc()
            await _send_response(send, _translate(exc))
            return
        except Exception:
            log.exception("chat completion failed")
            await _send_response(send, error_response(500, "internal error", "internal_error"))
            return
        raw_headers = [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        if reply.events is None:
            assert reply.body is not None
            raw_headers.append((b"content-type", b"application/json"))
            raw_headers.append((b"content-length", str(len(reply.body)).encode()))
            await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
            await send({"type": "http.response.body", "body": reply.body})
            return
        raw_headers.append((b"content-type", b"text/event-stream; charset=utf-8"))
        raw_headers.append((b"cache-control", b"no-cache"))
        await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
        await _send_events(send, reply.events)
        await send({"type": "http.response.body", "body": b""})


CHAT_PATH = "/v1/chat/completions"
_CHAT_HEADERS = frozenset(
    {
        b"authorization",
        b"cache-control",
        TTL_HEADER.encode(),
        NAMESPACE_HEADER.encode(),
        TAGS_HEADER.encode(),
        CONTENT_LANGUAGE_HEADER.encode(),
    }
)


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return value.decode("latin-1") if value is not None else None


async def read_body(receive: Receive, *, max_bytes: int | None = None) -> bytes:
    """The whole request body of an ASGI request (also used by the checks' proxy);
    :class:`BodyTooLarge` as soon as more than ``max_bytes`` arrived (the rest unread)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if max_bytes is not None and size > max_bytes:
            raise BodyTooLarge(max_bytes)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _declared_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else 0
    return 0


def _bounded(receive: Receive, max_bytes: int) -> Receive:
    """``receive`` that stops a chunked body at ``max_bytes`` (the admin API's)."""
    size = 0

    async def bounded() -> Message:
        nonlocal size
        message = await receive()
        size += len(message.get("body", b""))
        if size > max_bytes:
            raise BodyTooLarge(max_bytes)
        return message

    return bounded


async def _send_events(send: Send, events: AsyncIterator[bytes] | Iterable[bytes]) -> None:
    # A client that went away does not stop the relay: the upstream answer is read to the
    # end so that it can still be cached (uvicorn drops writes to a closed connection).
    if isinstance(events, AsyncIterator):
        async for event in events:
            await send({"type": "http.response.body", "body": event, "more_body": True})
    else:
        for event in events:
            await send({"type": "http.response.body", "body": event, "more_body": True})


async def _send_response(send: Send, response: Response) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": response.status_code,
            "headers": response.raw_headers,
        }
    )
    await send({"type": "http.response.body", "body": response.body})


def _listed_models(body: bytes) -> list[dict[str, Any]]:
    try:
        listed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return []
    data = listed.get("data") if isinstance(listed, dict) else None
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def create_app(
    parts: GatewayParts,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
) -> ChatCompletionsApp:
    app = FastAPI(title="cachecoh gateway", version="0.1.0", lifespan=lifespan)
    app.add_exception_handler(CachecohError, _cachecoh_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    service, admin, tenants = parts.service, parts.admin, parts.tenants

    @app.get("/v1/models", response_model=None)
    async def models(request: Request) -> Response:
        tenants.tenant(request.headers.get("authorization"))
        status, body = await parts.upstream.models()
        return Response(body, status_code=status, media_type=JSON)

    @app.get("/v1/models/{model_id:path}", response_model=None)
    async def model(model_id: str, request: Request) -> Response:
        tenants.tenant(request.headers.get("authorization"))
        status, body = await parts.upstream.models()
        if status != 200:
            return Response(body, status_code=status, media_type=JSON)
        for item in _listed_models(body):
            if item.get("id") == model_id:
                return Response(orjson.dumps(item), media_type=JSON)
        return error_response(
            404,
            f"The model '{model_id}' does not exist",
            "invalid_request_error",
            param="model",
            code="model_not_found",
        )

    @app.get("/health")
    async def health() -> dict[str, Any]:
        try:
            await parts.redis_ping()
            redis_state = "ok"
        except CachecohError:
            redis_state = "unavailable"
        return {
            "status": "ok",
            "redis": redis_state,
            "kill_switches": service.switches.state.as_dict(),
        }

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(parts.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/dashboard", response_model=None, include_in_schema=False)
    async def dashboard_page() -> Response:
        return Response(dashboard_html(), media_type="text/html; charset=utf-8")

    @app.get("/dashboard/data", response_model=None)
    async def dashboard_data() -> Response:
        if parts.dashboard is None:
            return error_response(404, "dashboard disabled", "not_found")
        numbers = await parts.dashboard.numbers()
        numbers["kill_switches"] = service.switches.state.as_dict()
        return Response(orjson.dumps(numbers), media_type=JSON)

    def require_admin(request: Request) -> None:
        parts.guard.check(request.headers.get("authorization"))

    @app.get("/admin/kill-switches", dependencies=[Depends(require_admin)])
    async def get_switches() -> dict[str, bool]:
        return await admin.kill_switches()

    @app.put("/admin/kill-switches/{layer}", dependencies=[Depends(require_admin)])
    async def set_switch(layer: str, change: SwitchChange) -> dict[str, bool]:
        if layer not in ("request", "semantic", "prefix_routing"):
            raise InvalidRequest("layer", "must be request, semantic or prefix_routing")
        return await admin.set_kill_switch(layer, change.enabled)

    @app.post("/admin/purge", dependencies=[Depends(require_admin)])
    async def purge(body: PurgeRequest) -> dict[str, Any]:
        results = [await admin.purge(tag, purge_id=uuid.uuid4().hex) for tag in body.tags]
        return {"purged": [{"tag": r.tag, "generation": r.generation} for r in results]}

    @app.get("/admin/entries/{key}", dependencies=[Depends(require_admin)], response_model=None)
    async def entry(key: str) -> Response:
        found = await admin.entry(key)
        if found is None:
            return error_response(404, "no such entry", "not_found", param="key")
        return Response(orjson.dumps(found), media_type=JSON)

    describe_routes(app, min_ttl_s=parts.min_ttl_s, max_ttl_s=parts.max_ttl_s)
    return ChatCompletionsApp(parts, app)
