"""Publishing ``ProductSpecUpdated`` events with kafka-python (for business systems).

Keyed by product id (per-product order), idempotent producer, ``acks=all``. Broker
failures become ``PublishError`` with a one-line message, within the configured timeout.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

from services.core.errors import PublishError
from services.core.events import ProductSpecUpdated

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Published:
    topic: str
    partition: int
    offset: int


def _describe(exc: BaseException) -> str:
    text = str(exc).strip() or exc.__class__.__name__
    return text.splitlines()[0][:200]


class SpecUpdatePublisher:
    """A kafka-python producer for the spec-update topic."""

    def __init__(
        self,
        bootstrap: str,
        *,
        topic: str,
        timeout_s: float = 10.0,
        client_id: str = "cachecoh-publisher",
    ) -> None:
        self.topic = topic
        self.bootstrap = bootstrap
        self._timeout_s = timeout_s
        budget_ms = int(timeout_s * 1000)
        try:
            self._producer = KafkaProducer(
                bootstrap_servers=bootstrap.split(","),
                client_id=client_id,
                acks="all",
                enable_idempotence=True,
                max_in_flight_requests_per_connection=5,
                retries=5,
                linger_ms=0,
                # Bound every wait so an unreachable broker fails fast and clearly.
                bootstrap_timeout_ms=min(budget_ms, 5000),
                max_block_ms=budget_ms,
                request_timeout_ms=budget_ms,
                delivery_timeout_ms=max(budget_ms, 1000),
                reconnect_backoff_max_ms=500,
            )
        except KafkaError as exc:
            raise PublishError(f"cannot connect to Kafka at {bootstrap}: {_describe(exc)}") from exc

    def publish(self, event: ProductSpecUpdated) -> Published:
        """Send one event and wait for the broker's acknowledgement."""
        return self.publish_raw(event.kafka_key, event.to_bytes())

    def publish_raw(
        self, key: bytes | None, value: bytes, headers: Sequence[tuple[str, bytes]] = ()
    ) -> Published:
        try:
            future = self._producer.send(self.topic, key=key, value=value, headers=list(headers))
            meta = future.get(timeout=self._timeout_s)
        except KafkaError as exc:
            raise PublishError(
                f"Kafka at {self.bootstrap} did not take the event: {_describe(exc)}"
            ) from exc
        return Published(meta.topic, meta.partition, meta.offset)

    def publish_many(self, events: Sequence[ProductSpecUpdated]) -> list[Published]:
        """Send a batch; every event is acknowledged or the call raises."""
        try:
            futures = [
                self._producer.send(self.topic, key=e.kafka_key, value=e.to_bytes()) for e in events
            ]
            metas = [f.get(timeout=self._timeout_s) for f in futures]
        except KafkaError as exc:
            raise PublishError(
                f"Kafka at {self.bootstrap} did not take the batch: {_describe(exc)}"
            ) from exc
        return [Published(m.topic, m.partition, m.offset) for m in metas]

    def close(self) -> None:
        self._producer.close(timeout=self._timeout_s)

    def __enter__(self) -> SpecUpdatePublisher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def ensure_topics(
    bootstrap: str, topics: Sequence[tuple[str, int]], *, timeout_s: float = 10.0
) -> None:
    """Create topics that do not exist yet (name, partitions). Idempotent."""
    try:
        admin = KafkaAdminClient(
            bootstrap_servers=bootstrap.split(","),
            client_id="cachecoh-admin",
            request_timeout_ms=int(timeout_s * 1000),
            bootstrap_timeout_ms=int(min(timeout_s, 5) * 1000),
        )
    except KafkaError as exc:
        raise PublishError(f"no Kafka broker reachable at {bootstrap}: {_describe(exc)}") from exc
    try:
        existing = set(admin.list_topics())
        missing = [NewTopic(n, p, 1) for n, p in topics if n not in existing]
        if missing:
            # A concurrent creator winning is the same outcome.
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(missing, timeout_ms=int(timeout_s * 1000))
            log.info("created topics %s", [t.name for t in missing])
    except KafkaError as exc:
        raise PublishError(f"topic setup failed at {bootstrap}: {_describe(exc)}") from exc
    finally:
        admin.close()
