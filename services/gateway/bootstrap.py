"""Composition root of the gateway: settings → adapters → service → FastAPI app.

Nothing is created at import time; ``create_app`` builds every client, and the app's
lifespan starts the kill-switch refresher and closes the clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from services.adapters import contract_files
from services.adapters.catalog_files import load_attributes, load_catalog
from services.adapters.contract_files import read_json
from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.gateway_redis import (
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
from services.adapters.redis_pipeline import PipelinedRedis
from services.adapters.redis_tag_store import RedisClient, connect_redis
from services.adapters.spec_facts import SpecStoreFacts
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.adapters.upstream_http import HttpUpstream
from services.core.canonical_question import QuestionVocabulary, VocabularyError
from services.core.csr import PriceTable
from services.core.errors import ContractError
from services.core.keys import KeySpace
from services.core.product_mentions import ProductNames
from services.core.prompt import sop_catalog_from_dict
from services.core.redaction import Redactor, vocabulary_words
from services.core.semantic.extractor import SemanticExtractor
from services.gateway.admin import AdminService
from services.gateway.app import ChatCompletionsApp, GatewayParts
from services.gateway.app import create_app as create_routes
from services.gateway.auth import AdminGuard, TenantDirectory
from services.gateway.costs import CostLedger
from services.gateway.dashboard import DashboardSource
from services.gateway.metrics import GatewayMetrics
from services.gateway.ports import Extractor, PiiFinder
from services.gateway.server import deadline_protocol, reuse_port_socket
from services.gateway.service import GatewayService
from services.gateway.settings import GatewaySettings, parse_tenant_answer_policies
from services.gateway.values import AnswerPolicy, GatewayPolicy
from services.paths import DEMO_DATA_DIR
from services.semantic.unresolved import RecordingExtractor, UnresolvedStore

log = logging.getLogger(__name__)

#: Files whose words are catalog or shopper vocabulary, never personal names.
#: (catalog.json and attributes.json come through the one catalog loader.)
_PROJECT_VOCABULARY_FILES = (contract_files.LEXICON_FILE, contract_files.ADMISSION_POLICY_FILE)


def load_redactor(data_dir: Path = DEMO_DATA_DIR) -> Redactor:
    """A redactor that knows the catalog's and the lexicon's words (not names/places)."""
    documents: list[Any] = [load_catalog(data_dir).to_json(), load_attributes(data_dir).to_json()]
    documents += [read_json(data_dir / name) for name in _PROJECT_VOCABULARY_FILES]
    return Redactor(vocabulary_words(*documents))


def load_extractor(settings: GatewaySettings) -> SemanticExtractor:
    from services.semantic.loading import load_semantic_extractor

    return load_semantic_extractor(
        settings.data_dir,
        admission_policy=settings.data_dir / contract_files.ADMISSION_POLICY_FILE,
        lexicon=settings.data_dir / contract_files.LEXICON_FILE,
        schemas_dir=settings.schemas_dir,
    )


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
    """The CSR price table, validated against its schema at start."""
    path = settings.prices_file or (settings.data_dir / contract_files.PRICES_FILE)
    return contract_files.load_price_table(path, settings.schemas_dir)


def answer_policies(settings: GatewaySettings) -> tuple[AnswerPolicy, dict[str, AnswerPolicy]]:
    """The default answer policy and each tenant's (fields it does not set: the default)."""
    default = AnswerPolicy(
        answer_temperature=settings.answer_temperature,
        cache_sampled=settings.allow_temperature_cache,
    )
    tenants = {
        tenant: AnswerPolicy(
            answer_temperature=float(
                overrides.get("answer_temperature", default.answer_temperature)
            ),
            cache_sampled=bool(overrides.get("cache_sampled", default.cache_sampled)),
        )
        for tenant, overrides in parse_tenant_answer_policies(
            settings.tenant_answer_policies
        ).items()
    }
    return default, tenants


def load_vocabulary(data_dir: Path) -> tuple[QuestionVocabulary, ProductNames]:
    """The canonical questions' words (attributes.json) and the catalog's product names."""
    path = data_dir / "attributes.json"
    try:
        vocabulary = QuestionVocabulary.from_attributes_json(read_json(path))
    except VocabularyError as exc:
        raise ContractError(str(path), exc.path, "needs at least one word") from exc
    return vocabulary, ProductNames.from_catalog_json(read_json(data_dir / "catalog.json"))


def build_parts(
    settings: GatewaySettings,
    *,
    extractor: Extractor | None = None,
    redactor: PiiFinder | None = None,
    spec_store: SpecStore | None = None,
) -> tuple[GatewayParts, RedisClient, PipelinedRedis | None, httpx.AsyncClient, RedisKillSwitches]:
    client = redis_client(settings)
    # The hit path's lookups: one pipelined connection (single-node Redis only).
    pipeline = (
        None
        if settings.redis_cluster
        else PipelinedRedis.from_url(
            settings.redis_url.get_secret_value(), timeout_s=settings.redis_socket_timeout_s
        )
    )
    keys = KeySpace(settings.redis_prefix)
    gateway_keys = GatewayKeys(settings.redis_prefix)
    metrics = GatewayMetrics.create()
    store = answer_store(
        client,
        keys,
        replica_guard=settings.replica_guard and not settings.redis_cluster,
        unverified=metrics.unverified_lookups,
        pipeline=pipeline,
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
    # No silent fallback to the demo's templates: a missing file fails at start, named.
    sop_path = settings.sop_templates or (settings.data_dir / "sop_templates.json")
    pointers = RequestPointers(client, keys)
    answers, tenant_answers = answer_policies(settings)
    vocabulary, product_names = load_vocabulary(settings.data_dir)
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
        client_bucket=RedisTokenBucket(
            client,
            gateway_keys,
            capacity=settings.client_override_capacity,
            refill_per_s=settings.client_override_refill_per_s,
        ),
        switches=switches,
        upstream=upstream,
        facts=SpecStoreFacts(spec_store or prepare_spec_store(settings)),
        extractor=extractor
        or RecordingExtractor(
            load_extractor(settings), UnresolvedStore(client, settings.redis_prefix)
        ),
        redactor=redactor or load_redactor(settings.data_dir),
        policy=GatewayPolicy(
            request_key_secret=settings.request_key_secret.get_secret_value().encode(),
            cache_salt_key=settings.cache_salt_key.get_secret_value().encode(),
            sop=sop_catalog_from_dict(read_json(sop_path)),
            request_ttl_s=settings.request_ttl_s,
            semantic_ttl_s=settings.semantic_ttl_s,
            vocabulary=vocabulary,
            products=product_names,
            answers=answers,
            tenant_answers=tenant_answers,
            assumed_default_temperature=settings.assumed_default_temperature,
            lease_wait_s=settings.lease_wait_s,
            lease_poll_s=settings.lease_poll_ms / 1000,
            fallback_message=settings.fallback_message,
            store_retry_s=settings.redis_retry_s,
            max_json_depth=settings.max_json_depth,
            max_question_chars=settings.max_question_chars,
            max_keyed_chars=settings.max_keyed_chars,
            offload_chars=settings.offload_chars,
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
        max_body_bytes=settings.max_body_bytes,
        dashboard=DashboardSource(
            metrics.registry,
            http,
            [
                f"{settings.upstream_url.rstrip('/')}/metrics",
                *(u.strip() for u in settings.dashboard_metrics_urls.split(",") if u.strip()),
            ],
        ),
    )
    return parts, client, pipeline, http, switches


def create_app(
    settings: GatewaySettings,
    *,
    extractor: Extractor | None = None,
    redactor: PiiFinder | None = None,
    spec_store: SpecStore | None = None,
) -> ChatCompletionsApp:
    """The gateway app. ``extractor``/``redactor``/``spec_store`` may be shared (tests)."""
    parts, client, pipeline, http, switches = build_parts(
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
            if pipeline is not None:
                await pipeline.aclose()
            await client.aclose()

    return create_routes(parts, lifespan)


def server_config(app: ChatCompletionsApp, settings: GatewaySettings, **overrides: Any) -> Any:
    """uvicorn's configuration of the gateway: httptools with the slow-client deadlines,
    the keep-alive timeout and the connection limit from the settings (``overrides``:
    other ``uvicorn.Config`` arguments, as tests run it)."""
    import importlib.util

    import uvicorn

    slow = app.parts.metrics.slow_connections
    arguments: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "loop": "uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        "http": deadline_protocol(
            header_timeout_s=settings.header_timeout_s,
            body_timeout_s=settings.body_timeout_s,
            on_timeout=lambda stage: slow.labels(stage).inc(),
        ),
        "timeout_keep_alive": settings.keep_alive_timeout_s,
        "limit_concurrency": settings.max_connections,
        "log_level": settings.log_level.lower(),
        "access_log": False,
        # No client address is read behind a proxy: its middleware is per-request work.
        "proxy_headers": False,
        "timeout_graceful_shutdown": 5,
    }
    return uvicorn.Config(app, **{**arguments, **overrides})


def serve(settings: GatewaySettings, *, reuse_port: bool = False) -> None:
    """Run the gateway under uvicorn (uvloop when installed); ``reuse_port``: on a socket
    other gateway processes may bind too (``SO_REUSEPORT``), as the benchmark's workers."""
    import uvicorn

    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # httpx logs every upstream call at INFO: noise on the miss path.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    server = uvicorn.Server(server_config(create_app(settings), settings))
    server.run(sockets=[reuse_port_socket(settings.host, settings.port)] if reuse_port else None)
