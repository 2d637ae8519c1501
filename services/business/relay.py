"""The outbox relay: publishes unsent outbox rows in order and marks them sent.

Publish first, then mark: a crash in between republishes the row (a duplicate that the
worker dedupes by event id), never loses it. A failure stops the pass so per-product
order is kept; the row stays pending and is retried on the next pass.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge

from services.adapters.kafka_publisher import SpecUpdatePublisher
from services.adapters.sql.spec_store import SpecStore
from services.core.errors import PublishError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RelayMetrics:
    registry: CollectorRegistry
    published: Counter
    failures: Counter
    pending: Gauge

    @classmethod
    def create(cls, registry: CollectorRegistry | None = None) -> RelayMetrics:
        reg = registry or CollectorRegistry()
        return cls(
            registry=reg,
            published=Counter(
                "cachecoh_outbox_published", "Outbox rows published to Kafka.", registry=reg
            ),
            failures=Counter(
                "cachecoh_outbox_publish_failures",
                "Outbox publish attempts that failed.",
                registry=reg,
            ),
            pending=Gauge(
                "cachecoh_outbox_pending_rows",
                "Outbox rows seen unsent at the last pass (a backlog if it keeps growing).",
                registry=reg,
            ),
        )


@dataclass
class OutboxRelay:
    store: SpecStore
    publisher: SpecUpdatePublisher
    batch: int = 500
    metrics: RelayMetrics = field(default_factory=RelayMetrics.create)

    def run_once(self) -> int:
        """One pass; returns how many rows were published."""
        sent: list[int] = []
        rows = self.store.pending_outbox(self.batch)
        self.metrics.pending.set(len(rows))
        try:
            for row in rows:
                try:
                    self.publisher.publish_raw(row.key, row.payload)
                except PublishError as exc:
                    log.warning("outbox row %d not published: %s", row.id, exc)
                    self.metrics.failures.inc()
                    self.store.mark_failed(row.id, str(exc))
                    break
                sent.append(row.id)
        finally:
            self.store.mark_sent(sent)
            self.metrics.published.inc(len(sent))
        return len(sent)

    def run_forever(self, poll_s: float, stop: threading.Event) -> None:
        while not stop.is_set():
            if self.run_once() == 0:
                stop.wait(poll_s)
