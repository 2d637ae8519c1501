"""What a fault run reports: from the harness's counters and from the worker's audit log."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import Engine, func, select

from services.adapters.sql.schema import AuditRow
from services.core.events import EventIdentity
from services.percentiles import nearest_rank

APPLIED_OUTCOMES = ("applied", "duplicate")


@dataclass(frozen=True, slots=True)
class AuditSummary:
    #: ``source#id`` of the events with outcome applied or duplicate
    applied_ids: frozenset[str]
    outcomes: dict[str, int]
    lag_ms_p50: float | None
    lag_ms_p99: float | None
    lag_ms_max: float | None


def read_audit(engine: Engine, topic: str) -> AuditSummary:
    """The audit rows of one run (one topic), summarised."""
    with engine.connect() as conn:
        ids = conn.execute(
            select(AuditRow.event_source, AuditRow.event_id).where(
                AuditRow.topic == topic, AuditRow.outcome.in_(APPLIED_OUTCOMES)
            )
        )
        applied = frozenset(str(EventIdentity(r[0], r[1])) for r in ids)
        outcomes = {
            str(outcome): int(n)
            for outcome, n in conn.execute(
                select(AuditRow.outcome, func.count())
                .where(AuditRow.topic == topic)
                .group_by(AuditRow.outcome)
            )
        }
        lags = sorted(
            float(r[0])
            for r in conn.execute(
                select(AuditRow.lag_ms).where(
                    AuditRow.topic == topic, AuditRow.outcome == "applied"
                )
            )
            if r[0] is not None
        )
    return AuditSummary(
        applied_ids=applied,
        outcomes=outcomes,
        lag_ms_p50=_round(nearest_rank(lags, 0.50)),
        lag_ms_p99=_round(nearest_rank(lags, 0.99)),
        lag_ms_max=_round(lags[-1] if lags else None),
    )


def wait_for_audit(
    engine: Engine, topic: str, event_ids: Collection[str], timeout_s: float
) -> AuditSummary:
    """Poll the audit until it holds every event (``source#id``), or the timeout passes."""
    wanted = frozenset(event_ids)
    deadline = time.monotonic() + timeout_s
    while True:
        summary = read_audit(engine, topic)
        if wanted <= summary.applied_ids or time.monotonic() > deadline:
            return summary
        time.sleep(0.5)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
