"""The faust application: one agent on the spec-update topic.

Acks are manual (``stream.noack()``, ``noack_take``): faust's automatic ack runs in a
``finally`` and would ack an event whose processing was cancelled or crashed, letting
the next commit skip it. Here an event is acked only after its bump is acknowledged by Redis and its
audit row is committed; faust commits only contiguous acked offsets.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import faust

from services.coherence.audit_writer import AuditWriter
from services.coherence.fetch_wait import FetchWaitGovernor
from services.coherence.handler import CoherenceHandler, RawRecord
from services.coherence.kafka_transport import FetchWaitControl, tuned_app_class
from services.coherence.metrics import CoherenceMetrics
from services.coherence.settings import CoherenceSettings

log = logging.getLogger(__name__)


def create_app(
    settings: CoherenceSettings,
    *,
    handler_factory: Any,
    audit_writer: AuditWriter,
    metrics: CoherenceMetrics,
) -> faust.App:
    """Build the faust app. ``handler_factory(dlq_topic) -> CoherenceHandler``."""
    fetch_wait = FetchWaitControl(settings.fetch_max_wait_ms)
    governor = FetchWaitGovernor(settings.fetch_max_wait_ms, cap_ms=settings.fetch_max_wait_cap_ms)
    metrics.fetch_wait_ms.set(settings.fetch_max_wait_ms)
    app_class = tuned_app_class(fetch_wait)
    app = app_class(
        settings.consumer_group,
        broker=f"kafka://{settings.kafka_bootstrap}",
        store="memory://",
        datadir=str(settings.state_dir),
        web_enabled=False,
        topic_disable_leader=True,
        topic_partitions=settings.topic_partitions,
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=settings.commit_interval_s,
        broker_commit_every=100,
        broker_rebalance_timeout=settings.rebalance_timeout_s,
        broker_session_timeout=settings.session_timeout_s,
        broker_heartbeat_interval=settings.heartbeat_interval_s,
        broker_request_timeout=max(settings.session_timeout_s + 5, 40.0),
        stream_wait_empty=False,
        producer_acks=-1,
        worker_redirect_stdouts=False,
        loghandlers=[],
    )
    source = app.topic(
        settings.topic,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.topic_partitions,
    )
    dlq = app.topic(
        settings.dlq_topic,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.topic_partitions,
    )
    handler: CoherenceHandler = handler_factory(dlq)
    positions: dict[int, int] = {}

    async def consume(stream: Any) -> None:
        manual = stream.noack()
        # Records that arrived together are applied together: one Redis round trip.
        async for batch in manual.noack_take(settings.batch_max, within=settings.batch_window_s):
            received = time.time()
            for event in batch:
                if event.message.timestamp:
                    metrics.broker_delay.observe(max(0.0, received - event.message.timestamp))
            records = [
                RawRecord(
                    e.message.topic,
                    e.message.partition,
                    e.message.offset,
                    e.message.key,
                    e.message.value,
                )
                for e in batch
            ]
            audits = await handler.handle_batch(records)
            handled = time.time() - received
            for _ in audits:
                metrics.processing.observe(handled)
            for event, audit in zip(batch, audits, strict=True):
                positions[event.message.partition] = event.message.offset + 1

                async def ack(event: Any = event) -> None:
                    await manual.ack(event)

                await audit_writer.submit(audit, ack)

    app.agent(source, name="apply-spec-updates", concurrency=1)(consume)

    async def write_audit() -> None:
        await audit_writer.run()

    async def watch_partitions() -> None:
        consumer = app.consumer
        assigned = [tp for tp in consumer.assignment() if tp.topic == settings.topic]
        metrics.assigned_partitions.set(len(assigned))
        highs: dict[int, int] = {}
        fetched: dict[int, int] = {}
        for tp in assigned:
            try:
                high = consumer.highwater(tp)
            except Exception:  # noqa: BLE001 - a metric must never stop the worker
                log.debug("no high-water mark for %s yet", tp)
                continue
            if high is None:
                continue
            highs[tp.partition] = high
            # faust's read offset: the last record fetched (the committed one after a seek).
            read = getattr(consumer, "_read_offset", {}).get(tp)
            fetched[tp.partition] = -1 if read is None else int(read)
            if tp.partition in positions:
                lag = max(0, high - positions[tp.partition])
                metrics.consumer_lag.labels(str(tp.partition)).set(lag)
        changed = governor.observe(highs, fetched, time.monotonic())
        if changed is not None:
            log.warning("fetching stalled or recovered: consumer fetch wait now %d ms", changed)
            fetch_wait.set(changed)
            metrics.fetch_wait_ms.set(changed)

    app.task(write_audit)
    app.timer(interval=1.0)(watch_partitions)
    return app
