"""Composition root of the gateway: settings → adapters → service → FastAPI app.

Nothing is created at import time; ``create_app`` builds every client, and the app's
lifespan starts the kill-switch refresher and closes the clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from jsonschema import Draft202012Validator

from services.adapters.contract_files import load_schema, read_json, validate_document
from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.redis_tag_store import RedisClient, connect_redis
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.core.csr import PriceTable, price_table_from_dict
from services.core.errors import ContractError
from services.core.keys import KeySpace
from services.core.prompt import sop_catalog_from_dict
from services.core.redaction import Redactor, vocabulary_words
from services.gateway.app import ChatCompletionsApp, GatewayParts
from services.gateway.app import create_app as create_routes
from services.gateway.auth import AdminGuard, TenantDirectory
from services.gateway.costs import CostLedger
from services.gateway.dashboard import DashboardSource
from services.gateway.facts import SpecStoreFacts
from services.gateway.metrics import GatewayMetrics
from services.gateway.redis_controls import (
    EntryInspector,
    GatewayKeys,
    RedisFillBreaker,
    RedisKillSwitches,
    RedisLeases,
    RedisTokenBucket,
    RequestPointers,
    SwitchState,
    answer_store,
)
from services.gateway.service import (
    AdminService,
    Extractor,
    GatewayPolicy,
    GatewayService,
    PiiFinder,
)
from services.gateway.settings import GatewaySettings
from services.gateway.upstream import HttpUpstream
from services.paths import DEMO_DATA_DIR

log = logging.getLogger(__name__)

#: Files whose words are catalog or shopper vocabulary, never personal names.
_VOCABULARY_FILES = ("catalog.json", "attributes.json")
_PROJECT_VOCABULARY_FILES = ("semantic_lexicon.json", "admission_policy.json")


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def load_redactor(data_dir: Path = DEMO_DATA_DIR) -> Redactor:
    """A redactor that knows the catalog's and the lexicon's words (not names/places)."""
    documents = [_read_json(data_dir / name) for name in _VOCABULARY_FILES]
    documents += [_read_json(DEMO_DATA_DIR / name) for name in _PROJECT_VOCABULARY_FILES]
    return Redactor(vocabulary_words(*documents))


def load_extractor(data_dir: Path) -> Extractor:
    from services.semantic.loading import load_semantic_extractor

    return load_semantic_extractor(data_dir)


def redis_client(settings: GatewaySettings) -> RedisClient:
    return connect_redis(
        settings.redis_url.get_secret_value(),
        cluster=settings.redis_cluster,
        timeout_s=settings.redis_socket_timeout_s,
        max_connections=settings.redis_max_connections,
    )


def prepare_spec_store(settings: GatewaySettings) -> SpecStore:
    """The spec store; migrated and seeded (catalog + store policies) when asked to."""
    url = settings.database_url.get_secret_value()
    if settings.seed_spec_store:
        upgrade(url)
    spec_store = SpecStore(make_engine(url), topic=settings.topic)
    if settings.seed_spec_store:
        seed_spec_store(spec_store, settings.data_dir)
    return spec_store


def seed_spec_store(spec_store: SpecStore, data_dir: Path) -> int:
    """Insert the demo catalog and the store-wide policies (as product ``store``)."""
    return spec_store.seed(load_demo_catalog(data_dir))


def load_price_table(settings: GatewaySettings) -> PriceTable:
    """The CSR price table, validated against schemas/prices.schema.json at start."""
    path = settings.prices_file or (settings.data_dir / "prices.json")
    raw = read_json(path)
    schema = load_schema("prices.schema.json", settings.schemas_dir)
    validate_document(path, raw, Draft202012Validator(schema))
    try:
        return price_table_from_dict(raw)
    except ValueError as exc:
        raise ContractError(str(path), "$.default_model", str(exc)) from exc


def build_parts(
    settings: GatewaySettings,
    *,
    extractor: Extractor | None = None,
    redactor: PiiFinder | None = None,
    spec_store: SpecStore | None = None,
) -> tuple[GatewayParts, RedisClient, httpx.AsyncClient, RedisKillSwitches]:
    client = redis_client(settings)
    keys = KeySpace(settings.redis_prefix)
    gateway_keys = GatewayKeys(settings.redis_prefix)
    metrics = GatewayMetrics.create()
    store = answer_store(
        client,
        keys,
        replica_guard=settings.replica_guard and not settings.redis_cluster,
        unverified=metrics.unverified_lookups,
    )

    def switches_changed(state: SwitchState) -> None:
        for layer, enabled in state.as_dict().items():
            metrics.kill_switch_enabled.labels(layer).set(1 if enabled else 0)

    switches = RedisKillSwitches(
        client,
        gateway_keys,
        refresh_s=settings.kill_switch_refresh_s,
        on_change=switches_changed,
        on_error=lambda: metrics.store_errors.labels("kill_switches").inc(),
    )
    switches_changed(switches.state)
    http = httpx.AsyncClient(
        timeout=httpx.Timeout(
            settings.upstream_timeout_s, connect=settings.upstream_connect_timeout_s
        ),
        limits=httpx.Limits(
            max_connections=settings.upstream_max_connections,
            max_keepalive_connections=settings.upstream_max_connections,
            # Shorter than the upstream's idle timeout (uvicorn and vLLM: 5 s), so the
            # gateway never reuses a connection the upstream is closing at that moment.
            keepalive_expiry=2.0,
        ),
    )
    upstream_key = (
        settings.upstream_api_key.get_secret_value() if settings.upstream_api_key else None
    )
    upstream = HttpUpstream(
        http, settings.upstream_url, timeout_s=settings.upstream_timeout_s, api_key=upstream_key
    )
    sop_path = settings.sop_templates or (settings.data_dir / "sop_templates.json")
    if not sop_path.exists():
        sop_path = DEMO_DATA_DIR / "sop_templates.json"
    pointers = RequestPointers(client, keys)
    service = GatewayService(
        store=store,
        pointers=pointers,
        leases=RedisLeases(client, gateway_keys, settings.lease_ttl_ms),
        bucket=RedisTokenBucket(
            client,
            gateway_keys,
            capacity=settings.bucket_capacity,
            refill_per_s=settings.bucket_refill_per_s,
        ),
        breaker=RedisFillBreaker(
            client, gateway_keys, misses_per_minute=settings.breaker_misses_per_minute
        ),
        switches=switches,
        upstream=upstream,
        facts=SpecStoreFacts(spec_store or prepare_spec_store(settings)),
        extractor=extractor or load_extractor(settings.data_dir),
        redactor=redactor or load_redactor(settings.data_dir),
        policy=GatewayPolicy(
            request_key_secret=settings.request_key_secret.get_secret_value().encode(),
            cache_salt_key=settings.cache_salt_key.get_secret_value().encode(),
            sop=sop_catalog_from_dict(_read_json(sop_path)),
            request_ttl_s=settings.request_ttl_s,
            semantic_ttl_s=settings.semantic_ttl_s,
            allow_temperature_cache=settings.allow_temperature_cache,
            assumed_default_temperature=settings.assumed_default_temperature,
            lease_wait_s=settings.lease_wait_s,
            lease_poll_s=settings.lease_poll_ms / 1000,
            fallback_message=settings.fallback_message,
            store_retry_s=settings.redis_retry_s,
        ),
        metrics=metrics,
        costs=CostLedger.create(load_price_table(settings), metrics.registry),
        memo_entries=settings.memo_entries,
    )
    admin = AdminService(
        switches=switches, bumper=store, entries=EntryInspector(client, keys), pointers=pointers
    )
    parts = GatewayParts(
        service=service,
        admin=admin,
        tenants=TenantDirectory(settings.tenants_by_key_hash()),
        guard=AdminGuard(settings.admin_token.get_secret_value()),
        metrics=metrics,
        upstream=upstream,
        min_ttl_s=settings.min_ttl_s,
        max_ttl_s=settings.max_ttl_s,
        redis_ping=store.ping,
        dashboard=DashboardSource(
            metrics.registry,
            http,
            [
                f"{settings.upstream_url.rstrip('/')}/metrics",
                *(u.strip() for u in settings.dashboard_metrics_urls.split(",") if u.strip()),
            ],
        ),
    )
    return parts, client, http, switches


def create_app(
    settings: GatewaySettings,
    *,
    extractor: Extractor | None = None,
    redactor: PiiFinder | None = None,
    spec_store: SpecStore | None = None,
) -> ChatCompletionsApp:
    """The gateway app. ``extractor``/``redactor``/``spec_store`` may be shared (tests)."""
    parts, client, http, switches = build_parts(
        settings, extractor=extractor, redactor=redactor, spec_store=spec_store
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        with contextlib.suppress(Exception):
            await switches.refresh()
        # The dictionaries (jieba, lexicon, catalog) are millions of long-lived objects;
        # left to the collector, every full collection would stall requests for ~100 ms.
        gc.collect()
        gc.freeze()
        refresher = asyncio.create_task(switches.run())
        try:
            yield
        finally:
            refresher.cancel()
            with contextlib.suppress(BaseException):
                await refresher
            await parts.service.aclose()
            await http.aclose()
            await client.aclose()

    return create_routes(parts, lifespan)


def serve(settings: GatewaySettings) -> None:
    """Run under uvicorn with uvloop and httptools when they are installed."""
    import importlib.util

    import uvicorn

    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # httpx logs every upstream call at INFO: noise on the miss path.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        loop=loop,
        http=http,
        log_level=settings.log_level.lower(),
        access_log=False,
        timeout_graceful_shutdown=5,
    )
