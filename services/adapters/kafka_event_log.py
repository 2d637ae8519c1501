"""The event log as the replica check needs it: the group's committed offsets and the
records of one partition between two offsets.

kafka-python's admin client and a manually assigned consumer (no group) work against
every broker we run on (Tansu included); both are blocking, so callers run them in a
thread. Kafka errors are translated here, once, into ``EventLogUnavailable``.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from services.coherence.handler import RawRecord
from services.core.errors import EventLogUnavailable


@dataclass(frozen=True, slots=True)
class LogSlice:
    records: list[RawRecord]
    #: The log no longer holds the first wanted offset (retention or compaction removed
    #: records Redis never applied): re-applying cannot repair Redis.
    truncated: bool


class KafkaEventLog:
    def __init__(self, bootstrap: str, topic: str, group: str, *, timeout_s: float = 5.0):
        self._servers = bootstrap.split(",")
        self._topic = topic
        self._group = group
        self._timeout_ms = int(timeout_s * 1000)
        self._admin: KafkaAdminClient | None = None

    def committed(self) -> dict[int, int]:
        """partition → the group's committed offset (the next record to read)."""
        try:
            self._admin = self._admin or KafkaAdminClient(
                bootstrap_servers=self._servers,
                client_id="cachecoh-replica-check",
                request_timeout_ms=self._timeout_ms,
            )
            offsets = self._admin.list_group_offsets(self._group).get(self._group, {})
        except (KafkaError, OSError, ValueError) as exc:
            self.close()
            raise EventLogUnavailable(f"committed offsets: {type(exc).__name__}") from exc
        return {
            tp.partition: int(meta.offset)
            for tp, meta in offsets.items()
            if tp.topic == self._topic and meta.offset is not None and meta.offset >= 0
        }

    def read(self, partition: int, first: int, last: int) -> LogSlice:
        """Records ``first..last`` (inclusive) of one partition."""
        tp = TopicPartition(self._topic, partition)
        try:
            consumer = KafkaConsumer(
                bootstrap_servers=self._servers,
                enable_auto_commit=False,
                request_timeout_ms=max(self._timeout_ms, 6000),
                max_poll_records=2000,
            )
        except (KafkaError, OSError) as exc:
            raise EventLogUnavailable(f"log read: {type(exc).__name__}") from exc
        try:
            consumer.assign([tp])
            start = int(consumer.beginning_offsets([tp])[tp])
            truncated = start > first
            consumer.seek(tp, max(first, start))
            out: list[RawRecord] = []
            deadline = time.monotonic() + self._timeout_ms / 1000 * 6
            while consumer.position(tp) <= last:
                if time.monotonic() > deadline:
                    raise EventLogUnavailable(
                        f"log read of {tp} stalled at {consumer.position(tp)}"
                    )
                for records in consumer.poll(timeout_ms=200).values():
                    for r in records:
                        if r.offset <= last:
                            out.append(RawRecord(r.topic, r.partition, r.offset, r.key, r.value))
                        else:
                            # Past the range: the position now exceeds ``last``.
                            break
            return LogSlice(out, truncated)
        except KafkaError as exc:
            raise EventLogUnavailable(f"log read: {type(exc).__name__}") from exc
        finally:
            consumer.close()

    def close(self) -> None:
        if self._admin is not None:
            with contextlib.suppress(Exception):
                self._admin.close()
        self._admin = None
