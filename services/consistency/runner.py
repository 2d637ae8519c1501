"""Run the checker: consume the spec topic in its own group, follow the worker group's
committed offsets, and probe each event's answers once the worker committed past it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer
from kafka import KafkaAdminClient
from prometheus_client import start_http_server

from services.adapters.contract_files import EVENT_SCHEMA, validator_for
from services.adapters.product_directory import SpecStoreDirectory
from services.adapters.redis_tag_store import RedisTagStore, ReplicaKeys, connect_redis
from services.adapters.sql.engine import make_engine
from services.adapters.sql.spec_store import SpecStore
from services.coherence.bootstrap import load_domain_mappings
from services.consistency.checker import CheckerMetrics, ConsistencyChecker
from services.consistency.settings import ConsistencySettings
from services.core.consistency import ConsistencyReport
from services.core.errors import InvalidEvent
from services.core.events import parse_event
from services.core.keys import KeySpace

log = logging.getLogger(__name__)


@dataclass
class CheckerRun:
    settings: ConsistencySettings
    checker: ConsistencyChecker
    ready: asyncio.Event

    async def run(self, stop: asyncio.Event, duration_s: float | None = None) -> ConsistencyReport:
        s = self.settings
        consumer = AIOKafkaConsumer(
            s.topic,
            bootstrap_servers=s.kafka_bootstrap,
            group_id=s.checker_group,
            auto_offset_reset="earliest" if s.from_beginning else "latest",
            enable_auto_commit=True,
            fetch_max_wait_ms=50,
        )
        # kafka-python's admin: its OffsetFetch works against every broker we run on
        # (aiokafka's admin fails to decode Tansu's answer).
        admin = await asyncio.to_thread(KafkaAdminClient, bootstrap_servers=s.kafka_bootstrap)
        validator = validator_for(EVENT_SCHEMA, s.schemas_dir)
        await consumer.start()
        deadline = time.monotonic() + duration_s if duration_s else None
        committed: dict[int, int] = {}
        next_poll = 0.0
        try:
            while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
                batches = await consumer.getmany(timeout_ms=50)
                if consumer.assignment() and not self.ready.is_set():
                    self.ready.set()
                for tp, records in batches.items():
                    for record in records:
                        try:
                            event = parse_event(record.value, record.key, validator)
                        except InvalidEvent:
                            continue  # the worker dead-letters it; nothing to probe
                        self.checker.add(tp.partition, record.offset, event)
                if self.checker.waiting and time.monotonic() >= next_poll:
                    groups = await asyncio.to_thread(admin.list_group_offsets, s.coherence_group)
                    committed = {
                        tp.partition: meta.offset
                        for tp, meta in groups.get(s.coherence_group, {}).items()
                        if tp.topic == s.topic
                    }
                    next_poll = time.monotonic() + s.watermark_poll_s
                    await self.checker.check_acknowledged(committed)
        finally:
            await consumer.stop()
            await asyncio.to_thread(admin.close)
        return self.checker.report()


def build_checker_run(settings: ConsistencySettings) -> CheckerRun:
    # Probes go through the lookup path a gateway uses, replica guard included.
    guarded = settings.replica_guard and not settings.redis_cluster
    store = RedisTagStore(
        connect_redis(settings.redis_url.get_secret_value(), cluster=settings.redis_cluster),
        KeySpace(settings.redis_prefix),
        replica=ReplicaKeys(settings.redis_prefix) if guarded else None,
    )
    spec_store = SpecStore(
        make_engine(settings.database_url.get_secret_value()), topic=settings.topic
    )
    directory = SpecStoreDirectory(spec_store)
    checker = ConsistencyChecker(
        store=store,
        mappings=load_domain_mappings(settings),
        variants=directory.variants,
        products=directory.product_ids,
        metrics=CheckerMetrics.create(),
        probe_limit=settings.probe_limit,
    )
    return CheckerRun(settings, checker, asyncio.Event())


def serve_metrics(run: CheckerRun) -> Callable[[], None]:
    if run.settings.metrics_port:
        start_http_server(
            run.settings.metrics_port,
            run.settings.metrics_host,
            registry=run.checker.metrics.registry,
        )
    return lambda: None
