"""The router's HTTP surface: an OpenAI-compatible proxy with prefix-aware routing.

A request whose connection to a replica fails before any response byte arrived is
retried on another replica (chat completions have no side effects), and the replica is
ejected. Once a stream has started it cannot move: if the replica dies mid-stream the
client gets an error event instead of a silently truncated answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import httpx
from fastapi import FastAPI, Request, Response
from fastapi.responses import StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from services.core.openai_contract import error_body
from services.core.prefix_blocks import block_hashes
from services.core.prompt import CACHE_SALT_FIELD, render_chat_prompt
from services.core.routing import (
    NoHealthyReplicaError,
    RouteDecision,
    RoutingPolicy,
    prefix_routing_key,
)
from services.inference.metrics_bridge import MetricsBridge
from services.inference.openai_schema import error_response
from services.inference.router.replicas import ReplicaPool, RouterMetrics, health_loop
from services.inference.router.settings import RouterSettings
from services.inference.tokenization import OfflineTokenizer

logger = logging.getLogger(__name__)

REPLICA_HEADER = "x-cachecoh-replica"
REASON_HEADER = "x-cachecoh-route-reason"
PREFIX_ROUTING_HEADER = "x-cachecoh-prefix-routing"
_FORWARDED_REQUEST_HEADERS = ("authorization", "content-type", "x-request-id", "accept")
_FORWARDED_RESPONSE_HEADERS = ("content-type", "x-request-id", "cache-control")
#: Failures where the replica never processed the request: safe to retry elsewhere.
_RETRYABLE = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError)


class RoutingKeyer:
    """Computes the prefix routing key the way a replica hashes its blocks."""

    def __init__(self, tokenizer: OfflineTokenizer, *, block_size: int, affinity_blocks: int):
        self._tokenizer = tokenizer
        self._block_size = block_size
        self._affinity_blocks = affinity_blocks

    def key(self, messages: Sequence[Mapping[str, Any]], salt: str | None) -> str | None:
        wanted = self._block_size * self._affinity_blocks
        token_ids: list[int] = []
        # ChatML markers are special tokens, so messages tokenise independently and only
        # the leading ones need encoding.
        for message in messages:
            token_ids += self._tokenizer.encode(
                render_chat_prompt([message], add_generation_prompt=False)
            )
            if len(token_ids) >= wanted:
                break
        hashes = block_hashes(token_ids[:wanted], salt=salt, block_size=self._block_size)
        return prefix_routing_key(hashes, self._affinity_blocks)


def _forward_headers(request: Request) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if k.lower() in _FORWARDED_REQUEST_HEADERS}


def _response_headers(upstream: httpx.Response, decision: RouteDecision) -> dict[str, str]:
    headers = {
        k: v for k, v in upstream.headers.items() if k.lower() in _FORWARDED_RESPONSE_HEADERS
    }
    headers[REPLICA_HEADER] = decision.replica
    headers[REASON_HEADER] = decision.reason.value
    return headers


def create_app(settings: RouterSettings, tokenizer: OfflineTokenizer | None = None) -> FastAPI:
    registry = CollectorRegistry()
    pool = ReplicaPool(
        settings.upstreams,
        policy=settings.policy,
        load_factor=settings.load_factor,
        load_window=settings.load_window,
        max_in_flight_gap=settings.max_in_flight_gap,
        ring_vnodes=settings.ring_vnodes,
        eject_after_failures=settings.eject_after_failures,
        metrics=RouterMetrics(registry),
    )
    keyer = RoutingKeyer(
        tokenizer or OfflineTokenizer.from_file(settings.tokenizer_path),
        block_size=settings.block_size,
        affinity_blocks=settings.affinity_blocks,
    )
    timeout = httpx.Timeout(
        settings.request_timeout_seconds, connect=settings.connect_timeout_seconds
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
        async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
            app.state.client = client
            bridge = MetricsBridge({n: pool.url(n) for n in pool.names}, client, registry)
            tasks = [
                asyncio.create_task(
                    health_loop(
                        pool,
                        client,
                        interval=settings.health_interval_seconds,
                        probe_timeout=settings.health_timeout_seconds,
                    )
                ),
                asyncio.create_task(bridge.run(settings.metrics_scrape_interval_seconds)),
            ]
            try:
                yield
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    app = FastAPI(title="cachecoh inference router", version="0.1.0", lifespan=lifespan)
    app.state.pool = pool

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200 if pool.any_healthy() else 503)

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/router/replicas")
    async def replicas() -> dict[str, Any]:
        return {
            "policy": pool.policy.value,
            "replicas": [dataclasses.asdict(view) for view in pool.views()],
        }

    @app.get("/v1/models", response_model=None)
    async def models(request: Request) -> Response:
        client: httpx.AsyncClient = request.app.state.client
        for view in pool.views():
            if not view.healthy:
                continue
            try:
                upstream = await client.get(f"{view.url}/v1/models")
            except httpx.HTTPError:
                continue
            return Response(upstream.content, upstream.status_code, media_type="application/json")
        return error_response("no healthy replica", status=503, error_type="ServiceUnavailable")

    @app.post("/v1/chat/completions", response_model=None)
    async def chat_completions(request: Request) -> Response:
        raw = await request.body()
        try:
            payload = json.loads(raw)
        except json.JSONDecodeError as exc:
            return error_response(
                f"request body is not JSON: {exc.msg}", status=400, error_type="BadRequestError"
            )
        messages = payload.get("messages") if isinstance(payload, dict) else None
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return error_response(
                "messages must be a list of message objects",
                status=400,
                error_type="BadRequestError",
                param="messages",
            )
        prefix_key = None
        # The gateway's prefix-routing kill switch: route by load instead of by prefix.
        prefix_routing = request.headers.get(PREFIX_ROUTING_HEADER, "on") != "off"
        if pool.policy is RoutingPolicy.PREFIX_AFFINITY and prefix_routing:
            salt = payload.get(CACHE_SALT_FIELD)
            prefix_key = keyer.key(messages, salt if isinstance(salt, str) else None)
        stream = bool(payload.get("stream"))
        client: httpx.AsyncClient = request.app.state.client
        headers = _forward_headers(request)
        tried: set[str] = set()
        while True:
            try:
                decision = pool.choose(prefix_key, excluded=tried)
            except NoHealthyReplicaError as exc:
                status = 502 if tried else 503
                return error_response(str(exc), status=status, error_type="ServiceUnavailable")
            url = f"{pool.url(decision.replica)}/v1/chat/completions"
            try:
                if stream:
                    upstream = await client.send(
                        client.build_request("POST", url, content=raw, headers=headers),
                        stream=True,
                    )
                    return StreamingResponse(
                        _relay(upstream, decision, pool),
                        status_code=upstream.status_code,
                        headers=_response_headers(upstream, decision),
                    )
                upstream = await client.post(url, content=raw, headers=headers)
            except _RETRYABLE as exc:
                pool.finish(decision.replica)
                pool.connection_failed(decision.replica, type(exc).__name__)
                tried.add(decision.replica)
                continue
            except httpx.TimeoutException:
                pool.finish(decision.replica)
                return error_response(
                    f"replica {decision.replica} timed out", status=504, error_type="Timeout"
                )
            pool.finish(decision.replica)
            return Response(
                upstream.content,
                status_code=upstream.status_code,
                headers=_response_headers(upstream, decision),
            )

    return app


async def _relay(
    upstream: httpx.Response, decision: RouteDecision, pool: ReplicaPool
) -> AsyncIterator[bytes]:
    try:
        async for chunk in upstream.aiter_raw():
            yield chunk
    except httpx.TransportError as exc:
        pool.connection_failed(decision.replica, type(exc).__name__)
        body = error_body(
            f"replica {decision.replica} failed mid-stream ({type(exc).__name__})",
            status=502,
            error_type="UpstreamStreamError",
        )
        yield f"data: {json.dumps(body)}\n\n".encode()
    finally:
        await upstream.aclose()
        pool.finish(decision.replica)
