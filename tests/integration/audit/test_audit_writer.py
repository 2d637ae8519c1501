"""The batched audit writer: a fetched batch's rows are acked together, only once they
are committed, and submitting waits while too many rows are pending (SQLite and Postgres)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

import pytest

from services.adapters.sql.audit import AuditLog, AuditRecord
from services.adapters.sql.engine import make_engine
from services.coherence.audit_writer import AuditWriter
from services.coherence.metrics import CoherenceMetrics


def _record(offset: int) -> AuditRecord:
    now = datetime.now(UTC)
    return AuditRecord(
        event_id=f"e-{offset}",
        event_source="test",
        product_id="iphone_15",
        spec_version=offset,
        tenant=None,
        changed_fields=["weight"],
        tags=["iphone_15/s:weight"],
        outcome="applied",
        reason=None,
        topic="t",
        partition=0,
        offset=offset,
        event_time=now,
        applied_at=now,
        lag_ms=1.0,
        worker="w",
    )


@pytest.fixture
def audit(fresh_database_url: str) -> AuditLog:
    """An empty audit log on SQLite and on Postgres (the production path)."""
    return AuditLog(make_engine(fresh_database_url))


def test_a_batch_is_acked_once_all_its_rows_are_committed(audit: AuditLog) -> None:
    writer = AuditWriter(audit, CoherenceMetrics.create(), flush_s=0.01)
    acked: list[tuple[int, set[str]]] = []

    async def run() -> None:
        both = asyncio.Event()

        def on_durable(n: int) -> Callable[[], Awaitable[None]]:
            async def ack() -> None:
                acked.append((n, audit.applied_event_ids()))
                if len(acked) == 2:
                    both.set()

            return ack

        task = asyncio.create_task(writer.run())
        await writer.submit_many([_record(1), _record(2)], on_durable(1))
        await writer.submit(_record(3), on_durable(2))
        await both.wait()
        task.cancel()

    asyncio.run(run())
    assert [n for n, _ in acked] == [1, 2]
    # Each ack ran only after every row of its batch was committed.
    assert {"e-1", "e-2"} <= acked[0][1]
    assert "e-3" in acked[1][1]


def test_submitting_waits_while_too_many_rows_are_pending(audit: AuditLog) -> None:
    writer = AuditWriter(audit, CoherenceMetrics.create(), max_pending=2, flush_s=0.01)
    order: list[str] = []

    async def run() -> None:
        both = asyncio.Event()

        async def ack() -> None:
            order.append("acked")
            if order.count("acked") == 2:
                both.set()

        await writer.submit_many([_record(1), _record(2)], ack)
        blocked = asyncio.create_task(writer.submit(_record(3), ack))
        await asyncio.sleep(0.05)
        order.append("still waiting" if not blocked.done() else "not blocked")
        task = asyncio.create_task(writer.run())
        await blocked
        order.append("submitted")
        await both.wait()
        task.cancel()

    asyncio.run(run())
    assert order[:3] == ["still waiting", "acked", "submitted"]
    assert audit.applied_event_ids() == {"e-1", "e-2", "e-3"}


def test_every_write_runs_on_the_writers_own_thread(audit: AuditLog) -> None:
    """One thread of its own for all writes (not the loop's default executor)."""
    threads: list[str] = []
    record_many = audit.record_many

    def recording(records: Sequence[AuditRecord]) -> None:
        threads.append(threading.current_thread().name)
        record_many(records)

    audit.record_many = recording  # type: ignore[method-assign]
    writer = AuditWriter(audit, CoherenceMetrics.create(), flush_s=0.005)

    async def run() -> None:
        task = asyncio.create_task(writer.run())
        for n in range(3):
            written = asyncio.Event()

            async def ack(written: asyncio.Event = written) -> None:
                written.set()

            await writer.submit(_record(n), ack)
            await written.wait()  # one write each: the next record is submitted after it
        task.cancel()

    asyncio.run(run())
    assert len(threads) == 3
    assert {t.split("_")[0] for t in threads} == {"audit-writer"}
    assert len(set(threads)) == 1
    assert audit.applied_event_ids() == {"e-0", "e-1", "e-2"}
