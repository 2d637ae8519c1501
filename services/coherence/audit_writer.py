"""Batched audit writes with acknowledgement callbacks.

The bump is applied synchronously per event; the audit row is written in batches (one
transaction per batch) and only then is the event's offset acked. A crash before the
batch commits means the event is redelivered: its bump is deduped, its row written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from services.adapters.sql.audit import AuditLog, AuditRecord, sanitized
from services.coherence.metrics import CoherenceMetrics
from services.coherence.retry import Backoff, retry_forever
from services.core.errors import AuditRejected, TransientError

log = logging.getLogger(__name__)
AckCallback = Callable[[], Awaitable[object]]


@dataclass
class AuditWriter:
    audit: AuditLog
    metrics: CoherenceMetrics
    batch_size: int = 500
    flush_s: float = 0.02
    max_pending: int = 5000
    backoff: Backoff = field(default_factory=Backoff)
    #: Rows of one fetched batch each, with the callback that acks them all.
    _queue: asyncio.Queue[tuple[list[AuditRecord], AckCallback]] = field(init=False)
    _pending: int = field(init=False, default=0)
    _room: asyncio.Event = field(init=False)
    #: Rows queued (or waiting for the flush) and not yet written; ``_full`` is set once
    #: they fill a batch.
    _queued_rows: int = field(init=False, default=0)
    _full: asyncio.Event = field(init=False)
    #: The one thread that writes (SQL drivers block): a write is a hand-over to it,
    #: without ``asyncio.to_thread``'s context copy and the default executor's pool.
    _thread: ThreadPoolExecutor = field(init=False)

    def __post_init__(self) -> None:
        self._queue = asyncio.Queue()
        self._room = asyncio.Event()
        self._room.set()
        self._full = asyncio.Event()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="audit-writer")

    async def submit(self, record: AuditRecord, on_durable: AckCallback) -> None:
        """Queue a row; waits when too many rows are pending (backpressure)."""
        await self.submit_many([record], on_durable)

    async def submit_many(self, records: list[AuditRecord], on_durable: AckCallback) -> None:
        """Queue the rows of one batch, acked together once all are committed; waits
        while ``max_pending`` rows or more are pending (backpressure)."""
        if not records:
            await on_durable()
            return
        while self._pending >= self.max_pending:
            self._room.clear()
            await self._room.wait()
        self._pending += len(records)
        self.metrics.audit_pending.inc(len(records))
        self._queue.put_nowait((records, on_durable))
        self._queued_rows += len(records)
        if self._queued_rows >= self.batch_size:
            self._full.set()

    async def run(self) -> None:
        """Write batches forever (a faust task): whatever is queued, up to ``batch_size``
        rows, after waiting at most ``flush_s`` for more once the first batch is in.

        One wait per written batch, not per submitted one: ``submit_many`` wakes the
        writer early only when a full batch is queued."""
        while True:
            first = await self._queue.get()
            if self._queued_rows < self.batch_size:
                self._full.clear()
                # The flush is due (asyncio.timeout, unlike wait_for, starts no task).
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.flush_s):
                        await self._full.wait()
            batch = [first]
            rows = len(first[0])
            while rows < self.batch_size and not self._queue.empty():
                batch.append(self._queue.get_nowait())
                rows += len(batch[-1][0])
            self._queued_rows -= rows
            await self._write(batch)

    def _write_one_by_one(self, records: list[AuditRecord]) -> None:
        """A refused batch: find the refused rows and store them sanitized, so one bad
        row never stalls the stream (the events themselves were applied)."""
        for record in records:
            try:
                self.audit.record_many([record])
            except AuditRejected as exc:
                log.error("audit row for %s refused (%s); storing it sanitized", record.offset, exc)
                try:
                    self.audit.record_many([sanitized(record, str(exc))])
                except AuditRejected:
                    log.error(
                        "sanitized audit row refused too; event at offset %s unaudited",
                        record.offset,
                    )
                    self.metrics.audit_rows_dropped.inc()

    async def _write(self, batch: list[tuple[list[AuditRecord], AckCallback]]) -> None:
        records = [r for rows, _ in batch for r in rows]

        def count(_exc: TransientError) -> None:
            self.metrics.retries.labels("database").inc()

        loop = asyncio.get_running_loop()

        async def write() -> None:
            try:
                await loop.run_in_executor(self._thread, self.audit.record_many, records)
            except AuditRejected:
                await loop.run_in_executor(self._thread, self._write_one_by_one, records)

        await retry_forever("audit write", write, self.backoff, count)
        for rows, on_durable in batch:
            await on_durable()
            self._pending -= len(rows)
            self.metrics.audit_pending.dec(len(rows))
        if self._pending < self.max_pending:
            self._room.set()
