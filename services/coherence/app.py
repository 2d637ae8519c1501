"""The faust application: the spec-update topic, applied in batches by one task.

faust keeps the consumer group, assignment, seeks, commits and the app's lifecycle; its
consumer hands each fetch over whole (``faust_transport.drain_in_batches``) to one
applying task, instead of per record through an agent's stream.

Acks are manual: faust's agents ack an event in a ``finally``, even one whose processing
was cancelled or crashed, letting the next commit skip it. Here a record is acked
(``Consumer.ack``) only after its bump is acknowledged by Redis and its audit row is
committed; faust commits only contiguous acked offsets. Batches go through the replica
guard, which repairs a Redis that lost part of the log before anything new is
acknowledged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import faust

from services.adapters.faust_transport import BatchHandoff, FetchWaitControl, tuned_app_class
from services.coherence.audit_writer import AuditWriter
from services.coherence.fetch_wait import FetchWaitGovernor
from services.coherence.handler import CoherenceHandler, RawRecord
from services.coherence.metrics import CoherenceMetrics, observe_many
from services.coherence.replica import ReplicaGuard
from services.coherence.settings import CoherenceSettings

log = logging.getLogger(__name__)
#: Acks between two commits besides the timed ones (``commit_interval_s``).
COMMIT_EVERY_ACKS = 1000

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
    handoff = BatchHandoff()
    app = _faust_app(settings, fetch_wait, handoff)
    source = _raw_topic(app, settings.topic, settings.topic_partitions)
    app.topics.add(source)  # subscribed (and its offsets acked) without an agent
    dlq = _raw_topic(app, settings.dlq_topic, settings.topic_partitions)
    handler = handler_factory(dlq)
    #: partition → next offset handled by this process
    positions: dict[int, int] = {}

    def assigned() -> set[int]:
        return {tp.partition for tp in app.consumer.assignment() if tp.topic == settings.topic}

    guard: ReplicaGuard | None = guard_factory(handler, assigned, positions)
    apply = guard.apply if guard is not None else handler.handle_batch
    consume = _consumer(
        app, handoff, apply, audit_writer, metrics, positions, limit=settings.batch_max
    )
    app.task(consume)

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


def _faust_app(
    settings: CoherenceSettings, fetch_wait: FetchWaitControl, handoff: BatchHandoff
) -> faust.App:
    app_class = tuned_app_class(fetch_wait, handoff)
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
        # Acked offsets commit every commit_interval_s anyway; a commit per 100 acks was
        # ten commit round trips a second at 1,000 events/s, inside the fetch loop.
        broker_commit_every=COMMIT_EVERY_ACKS,
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
    app: faust.App,
    handoff: BatchHandoff,
    apply: Callable[[Sequence[RawRecord]], Any],
    audit_writer: AuditWriter,
    metrics: CoherenceMetrics,
    positions: dict[int, int],
    *,
    limit: int,
) -> Callable[[], Any]:
    """The applying task: the fetched batches waiting, taken together (one Redis round
    trip each time), each record acked only once its effect and its audit row are
    acknowledged."""

    async def consume() -> None:
        consumer = app.consumer
        ack = consumer.ack
        broker_delay = metrics.broker_delay.observe
        processing = metrics.processing
        while True:
            batch = await handoff.take(limit)
            received = time.time()
            records = []
            for m in batch:
                if m.timestamp:
                    broker_delay(max(0.0, received - m.timestamp))
                records.append(RawRecord(m.topic, m.partition, m.offset, m.key, m.value))
            audits = await apply(records)
            handled = time.time() - received
            observe_many(processing, handled, len(audits))  # one value for the batch
            for m, _ in zip(batch, audits, strict=True):  # one audit row per record
                positions[m.partition] = m.offset + 1

            async def ack_all(batch: list[Any] = batch) -> None:
                for message in batch:
                    ack(message)

            await audit_writer.submit_many(audits, ack_all)

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
