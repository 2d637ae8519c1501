"""Redis as a recoverable replica of the event log (docs/coherence.md).

Every bump records, in the same script, the highest applied offset per partition, and
refuses to run on a record that holds less than this worker recorded. The guard here
compares that record with the consumer group's committed offsets on start, whenever a
bump is refused (a restarted, restored, failed-over or flushed Redis) and every
``check_interval_s``; if Redis is behind it re-applies the records from Redis's offset
(holding the agent, so nothing new is acknowledged meanwhile), then starts a new epoch
and sets the short coherence lease without which no lookup serves a cached entry.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, MutableMapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from services.adapters.kafka_event_log import KafkaEventLog
from services.adapters.redis_tag_store import RedisTagStore, Verification, position_field
from services.adapters.sql.audit import AuditRecord
from services.coherence.handler import CoherenceHandler, RawRecord
from services.coherence.metrics import CoherenceMetrics
from services.coherence.retry import Backoff, retry_forever
from services.core.errors import EventLogUnavailable, ReplicaBehind, TransientError

log = logging.getLogger(__name__)


@dataclass
class ReplicaGuard:
    store: RedisTagStore
    event_log: KafkaEventLog
    handler: CoherenceHandler
    metrics: CoherenceMetrics
    topic: str
    worker_id: str
    lease_ms: int
    #: Partitions of ``topic`` this worker owns now.
    assigned: Callable[[], Collection[int]]
    #: partition → next offset this process handled (applied or dead-lettered).
    handled: MutableMapping[int, int]
    batch_max: int = 500
    backoff: Backoff = field(default_factory=Backoff)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    _committed: dict[int, int] | None = field(default=None, init=False)
    _unrecoverable: set[str] = field(default_factory=set, init=False)
    #: Partitions this process handled records of (it may have lost or not yet been
    #: assigned them; verifying them too is harmless).
    _touched: set[int] = field(default_factory=set, init=False)

    async def apply(self, records: Sequence[RawRecord]) -> list[AuditRecord]:
        """Handle a batch; if Redis turns out to be behind, repair it first, then retry."""
        self._touched.update(r.partition for r in records)
        while True:
            async with self._lock:
                try:
                    return await self.handler.handle_batch(records)
                except ReplicaBehind as exc:
                    log.warning("%s; re-applying the log before going on", exc)
            await self.recover()

    async def check(self) -> Verification | None:
        """The periodic check: refreshes the lease, or repairs Redis when it is behind."""
        committed = await self._read_committed()
        if committed is None:  # never read the log's offsets: nothing to vouch for yet
            self.metrics.replica_checks.labels("error").inc()
            return None
        try:
            async with self._lock:
                verification = await self._verify(committed, new_epoch=False)
        except TransientError as exc:
            self.metrics.replica_checks.labels("error").inc()
            self.metrics.replica_lease.set(0)
            log.warning("replica check failed (%s); the lease lapses by itself", exc)
            return None
        if verification.behind and self._own_behind(verification):
            await self.recover()
        return verification

    async def recover(self) -> None:
        """Re-apply the log from Redis's offsets until it holds what was committed."""
        new_epoch = False
        while True:
            committed = await retry_forever("event log", self._read_committed_now, self.backoff)
            async with self._lock:
                verification = await retry_forever(
                    "redis",
                    partial(self._verify, committed, new_epoch=new_epoch),
                    self.backoff,
                )
                mine = self._own_behind(verification)
                if not mine:
                    return
                try:
                    for partition_field, held in mine.items():
                        await self._reapply(partition_field, held, committed)
                except ReplicaBehind as exc:
                    log.warning("Redis lost writes again during recovery (%s)", exc)
                new_epoch = True

    async def _reapply(self, partition_field: str, held: int, committed: dict[int, int]) -> None:
        partition = int(partition_field.rsplit(":", 1)[1])
        last = self._required_offset(partition, committed)
        if held >= last:
            return
        piece = await retry_forever(
            "event log",
            lambda: asyncio.to_thread(self.event_log.read, partition, held + 1, last),
            self.backoff,
        )
        log.warning(
            "Redis holds %s up to %d, the log was acknowledged up to %d: re-applying %d records",
            partition_field,
            held,
            last,
            len(piece.records),
        )
        await self.store.trust(partition_field, held)
        for start in range(0, len(piece.records), self.batch_max):
            await self.handler.handle_batch(
                piece.records[start : start + self.batch_max], replay=True
            )
        self.metrics.replica_reapplied.inc(len(piece.records))
        if piece.truncated:
            self._unrecoverable.add(partition_field)
            self.metrics.replica_checks.labels("unrecoverable").inc()
            log.error(
                "the log no longer holds records Redis lost on %s (retention): cached entries "
                "stay off until an operator flushes the prefix and clears the flag",
                partition_field,
            )

    async def _read_committed_now(self) -> dict[int, int]:
        self._committed = await asyncio.to_thread(self.event_log.committed)
        return dict(self._committed)

    async def _read_committed(self) -> dict[int, int] | None:
        """The group's committed offsets; the last ones read if the broker does not
        answer now (nothing can commit meanwhile), None if none were ever read."""
        try:
            return await self._read_committed_now()
        except EventLogUnavailable as exc:
            log.debug("committed offsets unavailable (%s); using the last ones", exc)
        return None if self._committed is None else dict(self._committed)

    def _required_offset(self, partition: int, committed: dict[int, int]) -> int:
        """The last offset Redis must hold: acknowledged by the group, or handled here."""
        return max(committed.get(partition, 0), self.handled.get(partition, 0)) - 1

    def _own_partitions(self) -> set[int]:
        return set(self.assigned()) | self._touched

    def _own_fields(self) -> list[str]:
        return [position_field(self.topic, p) for p in sorted(self._own_partitions())]

    def _own_behind(self, verification: Verification) -> dict[str, int]:
        own = set(self._own_fields())
        return {f: held for f, held in verification.behind.items() if f in own}

    async def _verify(self, committed: dict[int, int], *, new_epoch: bool) -> Verification:
        required = {position_field(self.topic, p): off - 1 for p, off in committed.items()}
        for p in self._own_partitions():
            required[position_field(self.topic, p)] = self._required_offset(p, committed)
        verification = await self.store.verify(
            required,
            own=self._own_fields(),
            lease_ms=self.lease_ms,
            worker=self.worker_id,
            new_epoch=new_epoch,
        )
        for partition_field in self._unrecoverable:
            await self.store.block(partition_field, self.worker_id)
        leased = verification.leased and not self._unrecoverable
        result = "adopted" if verification.adopted else "behind" if verification.behind else "ok"
        self.metrics.replica_checks.labels(result).inc()
        self.metrics.replica_behind.set(len(verification.behind))
        self.metrics.replica_lease.set(1 if leased else 0)
        if verification.adopted:
            log.warning(
                "Redis had no replica record (empty, flushed or replaced): adopted the "
                "committed offsets as epoch %d",
                verification.epoch,
            )
        elif new_epoch and leased:
            log.warning(
                "Redis repaired: new epoch %d, cached entries served again", verification.epoch
            )
        return verification
