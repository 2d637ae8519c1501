"""The faust application: one agent on the spec-update topic.

Acks are manual (``stream.noack()``, ``events()``): faust's automatic ack runs in a
``finally`` and would ack an event whose processing was cancelled or crashed, letting
the next commit skip it. Here an event is acked only after its bump is acknowledged by Redis and its
audit row is committed; faust commits only contiguous acked offsets. Batches go through
the replica guard, which repairs a Redis that lost part of the log before anything new
is acknowledged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import faust

from services.coherence.audit_writer import AuditWriter
from services.coherence.fetch_wait import FetchWaitGovernor
from services.coherence.handler import CoherenceHandler, RawRecord
from services.coherence.kafka_transport import FetchWaitControl, tuned_app_class
from services.coherence.metrics import CoherenceMetrics
from services.coherence.replica import ReplicaGuard
from services.coherence.settings import CoherenceSettings

log = logging.getLogger(__name__)

#: ``handler_factory(dlq_topic) -> CoherenceHandler``
HandlerFactory = Callable[[Any], CoherenceHandler]
#: ``guard_factory(handler, assigned, handled) -> ReplicaGuard | None`` (None: unguarded)
GuardFactory = Callable[[CoherenceHandler, Callable[[], set[int]], dict[int, int]], Any]


def create_app(
    settings: CoherenceSettings,
    *,
    handler_factory: HandlerFactory,
    audit_writer: AuditWriter,
    metrics: CoherenceMetrics,
    guard_factory: GuardFactory,
) -> faust.App:
    """The faust app: its topics, the applying agent, the audit task and two timers."""
    fetch_wait = FetchWaitControl(settings.fetch_max_wait_ms)
    metrics.fetch_wait_ms.set(settings.fetch_max_wait_ms)
    app = _faust_app(settings, fetch_wait)
    source = _raw_topic(app, settings.topic, settings.topic_partitions)
    dlq = _raw_topic(app, settings.dlq_topic, settings.topic_partitions)
    handler = handler_factory(dlq)
    #: partition → next offset handled by this process
    positions: dict[int, int] = {}

    def assigned() -> set[int]:
        return {tp.partition for tp in app.consumer.assignment() if tp.topic == settings.topic}

    guard: ReplicaGuard | None = guard_factory(handler, assigned, positions)
    apply = guard.apply if guard is not None else handler.handle_batch
    consume = _consumer(settings, apply, audit_writer, metrics, positions)
    app.agent(source, name="apply-spec-updates", concurrency=1)(consume)

    async def write_audit() -> None:
        await audit_writer.run()

    app.task(write_audit)
    governor = FetchWaitGovernor(settings.fetch_max_wait_ms, cap_ms=settings.fetch_max_wait_cap_ms)
    app.timer(interval=1.0)(
        _partition_watcher(app, settings, metrics, governor, fetch_wait, positions)
    )
    if guard is not None:

        async def check_replica() -> None:
            await guard.check()

        app.timer(interval=settings.replica_check_interval_s, on_leader=False)(check_replica)
    return app


def _faust_app(settings: CoherenceSettings, fetch_wait: FetchWaitControl) -> faust.App:
    app_class = tuned_app_class(fetch_wait)
    return app_class(
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


def _raw_topic(app: faust.App, name: str, partitions: int) -> Any:
    return app.topic(
        name,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
        partitions=partitions,
    )


def _consumer(
    settings: CoherenceSettings,
    apply: Callable[[Sequence[RawRecord]], Any],
    audit_writer: AuditWriter,
    metrics: CoherenceMetrics,
    positions: dict[int, int],
) -> Callable[[Any], Any]:
    async def consume(stream: Any) -> None:
        manual = stream.noack()
        ready = manual.channel.queue
        events = manual.events()
        # Records fetched together are applied together (one Redis round trip): after the
        # first, take what is already queued, without waiting. (faust's ``noack_take``
        # wakes on a timer even when idle and holds each batch until the window ends.)
        async for first in events:
            batch = [first]
            while len(batch) < settings.batch_max and not ready.empty():
                batch.append(await anext(events))
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
            audits = await apply(records)
            handled = time.time() - received
            for _ in audits:
                metrics.processing.observe(handled)
            for event, audit in zip(batch, audits, strict=True):
                positions[event.message.partition] = event.message.offset + 1

                async def ack(event: Any = event) -> None:
                    await manual.ack(event)

                await audit_writer.submit(audit, ack)

    return consume


def _partition_watcher(
    app: faust.App,
    settings: CoherenceSettings,
    metrics: CoherenceMetrics,
    governor: FetchWaitGovernor,
    fetch_wait: FetchWaitControl,
    positions: dict[int, int],
) -> Callable[[], Any]:
    """Consumer lag per partition, and the fetch wait raised while a partition starves."""

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

    return watch_partitions
