"""The router's composition root: replica pool, prompt hasher, KV block index and its
event subscriber, metrics bridge, and the HTTP routes over them.

Routes: ``POST /v1/chat/completions`` and ``GET /v1/models`` (OpenAI-compatible, proxied),
``GET /health`` (liveness: the process answers), ``GET /ready`` (readiness: a replica
passed a health probe), ``GET /metrics``, ``GET /router/replicas``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import httpx
from fastapi import FastAPI, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from services.core.kv_index import KvBlockIndex
from services.inference.metrics_bridge import MetricsBridge, ReplicaCacheReport
from services.inference.openai_schema import error_response
from services.inference.router.keying import PromptHasher
from services.inference.router.kv_events import KvEventMetrics, KvEventSubscriber
from services.inference.router.proxy import (  # re-exported for callers and tests
    PREFIX_ROUTING_HEADER,
    REASON_HEADER,
    REPLICA_HEADER,
    ChatProxy,
)
from services.inference.router.replicas import ReplicaPool, RouterMetrics, health_loop
from services.inference.router.settings import RouterSettings
from services.inference.tokenization import OfflineTokenizer

__all__ = ["PREFIX_ROUTING_HEADER", "REASON_HEADER", "REPLICA_HEADER", "create_app"]

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class RouterParts:
    settings: RouterSettings
    registry: CollectorRegistry
    pool: ReplicaPool
    proxy: ChatProxy
    subscriber: KvEventSubscriber | None


def build_router(
    settings: RouterSettings, tokenizer: OfflineTokenizer | None = None
) -> RouterParts:
    registry = CollectorRegistry()
    index = KvBlockIndex()
    subscriber: KvEventSubscriber | None = None
    pool_names = ReplicaPool.names_for(settings.upstreams)
    if settings.kv_event_endpoints:
        subscriber = KvEventSubscriber(
            dict(zip(pool_names, settings.kv_event_endpoints, strict=True)),
            settings.kv_events_topic,
            index,
            KvEventMetrics(registry),
        )
    pool = ReplicaPool(
        settings.upstreams,
        policy=settings.policy,
        load_factor=settings.load_factor,
        load_window=settings.load_window,
        max_in_flight_gap=settings.max_in_flight_gap,
        ring_vnodes=settings.ring_vnodes,
        eject_after_failures=settings.eject_after_failures,
        metrics=RouterMetrics(registry),
        max_kv_usage=settings.max_kv_usage,
        on_eject=(lambda name: subscriber.forget(name, "ejected")) if subscriber else None,
    )
    hasher = PromptHasher(
        tokenizer or OfflineTokenizer.from_file(settings.tokenizer_path),
        block_size=settings.block_size,
        affinity_blocks=settings.affinity_blocks,
        hash_seed=settings.hash_seed,
        max_prompt_blocks=settings.kv_max_prompt_blocks,
    )
    return RouterParts(settings, registry, pool, ChatProxy(pool, hasher, index), subscriber)


def _background_tasks(
    parts: RouterParts, client: httpx.AsyncClient
) -> list[Coroutine[Any, Any, None]]:
    settings, pool = parts.settings, parts.pool
    bridge = MetricsBridge({n: pool.url(n) for n in pool.names}, client, parts.registry)

    def feed_load(report: ReplicaCacheReport) -> None:
        if report.metrics is not None:
            pool.update_load(
                report.replica,
                waiting=report.metrics.requests_waiting,
                kv_usage=report.metrics.kv_usage,
            )

    tasks = [
        health_loop(
            pool,
            client,
            interval=settings.health_interval_seconds,
            probe_timeout=settings.health_timeout_seconds,
        ),
        bridge.run(settings.metrics_scrape_interval_seconds, on_report=feed_load),
    ]
    if parts.subscriber is not None:
        tasks.append(parts.subscriber.run())
    return tasks


def _lifespan(parts: RouterParts) -> Any:
    timeout = httpx.Timeout(
        parts.settings.request_timeout_seconds, connect=parts.settings.connect_timeout_seconds
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
        async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
            app.state.client = client
            tasks = [asyncio.create_task(job) for job in _background_tasks(parts, client)]
            try:
                yield
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    return lifespan


def _operations_routes(app: FastAPI, parts: RouterParts) -> None:
    pool = parts.pool

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200)

    @app.get("/ready")
    async def ready() -> Response:
        return Response(status_code=200 if pool.ready() else 503)

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(parts.registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/router/replicas")
    async def replicas() -> dict[str, Any]:
        return {
            "policy": pool.policy.value,
            "replicas": [dataclasses.asdict(view) for view in pool.views()],
        }


def _openai_routes(app: FastAPI, parts: RouterParts) -> None:
    pool = parts.pool

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
        return await parts.proxy.chat_completions(request, request.app.state.client)


def create_app(settings: RouterSettings, tokenizer: OfflineTokenizer | None = None) -> FastAPI:
    parts = build_router(settings, tokenizer)
    app = FastAPI(title="cachecoh inference router", version="0.1.0", lifespan=_lifespan(parts))
    app.state.pool = parts.pool
    _operations_routes(app, parts)
    _openai_routes(app, parts)
    return app
