"""Inspect and replay the dead-letter topic.

Replay reads every dead letter, re-parses its original bytes against today's event schema
(size, UTF-8, JSON, ``product-spec-updated.schema.json``, key = product id) and republishes
the ones that pass to the main topic, keyed by the event's product id. It does not consult
the mappings or the spec store: a letter dead-lettered for an unknown field or product is
republished once it parses, and the worker decides again (and may dead-letter it again).
A letter carries no raw key, only its digest (header ``key_digest``): replay refuses a
letter whose event's key would not have that digest (the original key did not match the
product). Within one run each CloudEvents (source, id) is republished once; replaying twice
is harmless anyway, the worker dedupes by (source, id).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaTimeoutError

from services.adapters.kafka_publisher import SpecUpdatePublisher
from services.core.errors import BrokerUnavailable, InvalidEvent, InvalidReason
from services.core.events import EventIdentity, SchemaValidator, digest_of, parse_event


@dataclass(frozen=True, slots=True)
class DeadLetter:
    partition: int
    offset: int
    key: bytes | None
    value: bytes
    headers: dict[str, str]

    @property
    def reason(self) -> str:
        return self.headers.get("reason", "unknown")


def read_dead_letters(
    bootstrap: str, topic: str, *, idle_timeout_s: float = 2.0, connect_timeout_s: float = 5.0
) -> Iterator[DeadLetter]:
    """Every record of the DLQ, from the beginning (manual assignment, no group).

    Raises ``BrokerUnavailable`` when no broker answers within ``connect_timeout_s``.
    """
    try:
        consumer = KafkaConsumer(
            bootstrap_servers=bootstrap.split(","),
            enable_auto_commit=False,
            bootstrap_timeout_ms=int(connect_timeout_s * 1000),
        )
    except KafkaTimeoutError as exc:
        raise BrokerUnavailable(
            f"no Kafka broker answered at {bootstrap} within {connect_timeout_s:g} s"
        ) from exc
    try:
        partitions = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        if not tps:
            return
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        deadline = time.monotonic() + idle_timeout_s
        while any(consumer.position(tp) < ends[tp] for tp in tps) and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=200).items():
                deadline = time.monotonic() + idle_timeout_s
                for r in records:
                    yield DeadLetter(
                        tp.partition,
                        r.offset,
                        r.key,
                        r.value or b"",
                        {k: v.decode("utf-8", "replace") for k, v in (r.headers or [])},
                    )
    finally:
        consumer.close()


@dataclass
class ReplayReport:
    read: int = 0
    replayed: int = 0
    duplicates: int = 0
    still_invalid: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, object]:
        return {
            "read": self.read,
            "replayed": self.replayed,
            "duplicates": self.duplicates,
            "still_invalid": dict(self.still_invalid),
        }


def replay(
    letters: Iterator[DeadLetter],
    validator: SchemaValidator,
    publisher: SpecUpdatePublisher | None,
    *,
    reason: str | None = None,
) -> ReplayReport:
    """Republish the letters that validate now; ``publisher=None`` is a dry run."""
    report = ReplayReport()
    republished: set[EventIdentity] = set()
    for letter in letters:
        if reason is not None and letter.reason != reason:
            continue
        report.read += 1
        try:
            event = parse_event(letter.value, None, validator)
        except InvalidEvent as exc:
            report.still_invalid[exc.reason.value] += 1
            continue
        original_key = letter.headers.get("key_digest")
        if original_key is not None and original_key != digest_of(event.kafka_key):
            report.still_invalid[InvalidReason.KEY_MISMATCH.value] += 1
            continue
        if event.identity in republished:
            report.duplicates += 1
            continue
        republished.add(event.identity)
        if publisher is not None:
            publisher.publish_raw(event.kafka_key, letter.value)
        report.replayed += 1
    return report
