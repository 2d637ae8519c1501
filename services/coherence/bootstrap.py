"""Composition root of the coherence worker: settings → adapters → handler → faust app."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import faust
from prometheus_client import start_http_server

from services.adapters.contract_files import EVENT_SCHEMA, load_mappings, read_json, validator_for
from services.adapters.dead_letter_producer import FaustDeadLetters
from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.kafka_event_log import KafkaEventLog
from services.adapters.kafka_publisher import ensure_topics
from services.adapters.product_directory import SpecStoreDirectory
from services.adapters.redis_pipeline import PipelinedRedis
from services.adapters.redis_tag_store import RedisTagStore, ReplicaKeys, connect_redis
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.coherence.app import create_app
from services.coherence.audit_writer import AuditWriter
from services.coherence.handler import CoherenceHandler
from services.coherence.metrics import CoherenceMetrics
from services.coherence.replica import ReplicaGuard
from services.coherence.retry import Backoff
from services.coherence.settings import CoherenceSettings
from services.core.keys import KeySpace
from services.core.mapping import MappingSet
from services.settings import CommonSettings

log = logging.getLogger(__name__)
CACHEABLE_INTENTS = ("query_spec", "query_policy")
#: A Redis call fails (and is retried) after this long instead of hanging on a stall.
REDIS_TIMEOUT_S = 2.0


def load_domain_mappings(settings: CommonSettings) -> MappingSet:
    vocabulary = read_json(settings.data_dir / "attributes.json")
    return load_mappings(
        settings.mappings_dir,
        known_slots=set(vocabulary["attributes"]),
        known_intents=CACHEABLE_INTENTS,
        schemas_dir=settings.schemas_dir,
    )


def prepare_database(settings: CoherenceSettings) -> SpecStore:
    """The spec store; migrated and seeded from the demo catalog only when the settings
    ask for it (the embedded demo and tests), as the gateway's."""
    url = settings.database_url.get_secret_value()
    if settings.seed_spec_store:
        upgrade(url)
    store = SpecStore(make_engine(url), topic=settings.topic)
    if settings.seed_spec_store:
        added = store.seed(load_demo_catalog(settings.data_dir))
        if added:
            log.info("seeded the spec store with %d products", added)
    return store


@dataclass
class CoherenceWorker:
    app: faust.App
    metrics: CoherenceMetrics
    settings: CoherenceSettings

    def run(self) -> None:
        """Run until stopped (blocks). Starts the metrics server first."""
        # The consumer runs on the app's loop, but audit writes run in a thread: with the
        # default 5 ms switch interval a fetch can wait that long for the GIL meanwhile.
        sys.setswitchinterval(self.settings.switch_interval_ms / 1000)
        if self.settings.metrics_port:
            start_http_server(
                self.settings.metrics_port,
                self.settings.metrics_host,
                registry=self.metrics.registry,
            )
        worker = faust.Worker(
            self.app,
            loglevel=self.settings.log_level.lower(),
            quiet=True,
            redirect_stdouts=False,
            override_logging=False,
        )
        worker.execute_from_commandline()


def build_worker(settings: CoherenceSettings) -> CoherenceWorker:
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    mappings = load_domain_mappings(settings)
    validator = validator_for(EVENT_SCHEMA, settings.schemas_dir)
    spec_store = prepare_database(settings)
    audit = AuditLog(spec_store.engine)
    ensure_topics(
        settings.kafka_bootstrap,
        [
            (settings.topic, settings.topic_partitions),
            (settings.dlq_topic, settings.topic_partitions),
        ],
    )
    metrics = CoherenceMetrics.create()
    # Redis Cluster: no replica record (one script cannot span slots); docs/coherence.md.
    replica = None if settings.redis_cluster else ReplicaKeys(settings.redis_prefix)
    redis_url = settings.redis_url.get_secret_value()
    store = RedisTagStore(
        connect_redis(redis_url, cluster=settings.redis_cluster, timeout_s=REDIS_TIMEOUT_S),
        KeySpace(settings.redis_prefix),
        generations_ttl_ms=settings.generations_ttl_s * 1000,
        dedupe_ttl_ms=settings.dedupe_ttl_s * 1000,
        replica=replica,
        # Each batch's bumps on one lean connection (redis-py's pipeline machinery was a
        # sixth of the worker's CPU); a cluster, or TLS, stays on redis-py.
        pipeline=None
        if settings.redis_cluster
        else PipelinedRedis.from_url(redis_url, timeout_s=REDIS_TIMEOUT_S),
    )
    backoff = Backoff(settings.retry_initial_ms / 1000, settings.retry_max_ms / 1000)
    directory = SpecStoreDirectory(spec_store, refresh_s=settings.product_refresh_s)

    def handler_factory(dlq_topic: Any) -> CoherenceHandler:
        return CoherenceHandler(
            validator=validator,
            mappings=mappings,
            store=store,
            dead_letters=FaustDeadLetters(dlq_topic),
            directory=directory,
            metrics=metrics,
            worker_id=settings.worker_id,
            backoff=backoff,
            strict_products=settings.strict_products,
            max_event_bytes=settings.max_event_bytes,
        )

    writer = AuditWriter(
        audit,
        metrics,
        batch_size=settings.audit_batch_size,
        flush_s=settings.audit_flush_ms / 1000,
        max_pending=settings.max_pending_acks,
        backoff=backoff,
    )
    event_log = KafkaEventLog(settings.kafka_bootstrap, settings.topic, settings.consumer_group)

    def guard_factory(
        handler: CoherenceHandler, assigned: Callable[[], set[int]], handled: dict[int, int]
    ) -> ReplicaGuard | None:
        if replica is None:
            return None
        return ReplicaGuard(
            store=store,
            event_log=event_log,
            handler=handler,
            metrics=metrics,
            topic=settings.topic,
            worker_id=settings.worker_id,
            lease_ms=settings.replica_lease_ms,
            assigned=assigned,
            handled=handled,
            batch_max=settings.batch_max,
            backoff=backoff,
        )

    app = create_app(
        settings,
        handler_factory=handler_factory,
        audit_writer=writer,
        metrics=metrics,
        guard_factory=guard_factory,
    )
    return CoherenceWorker(app=app, metrics=metrics, settings=settings)
