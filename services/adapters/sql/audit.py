"""The coherence audit log: one row per consumed record, written idempotently."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from services.adapters.sql.schema import AuditRow
from services.core.errors import DatabaseUnavailable


@dataclass(frozen=True, slots=True)
class AuditRecord:
    event_id: str
    product_id: str | None
    spec_version: int | None
    tenant: str | None
    changed_fields: list[str]
    tags: list[str]
    outcome: str
    reason: str | None
    topic: str
    partition: int
    offset: int
    event_time: datetime | None
    applied_at: datetime
    lag_ms: float | None
    worker: str


class AuditLog:
    """Insert-or-ignore by event id: a redelivered event keeps its first row."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _insert(self) -> Any:
        if self._engine.dialect.name == "postgresql":
            return postgresql.insert(AuditRow).on_conflict_do_nothing(index_elements=["event_id"])
        if self._engine.dialect.name == "sqlite":
            return sqlite.insert(AuditRow).on_conflict_do_nothing(index_elements=["event_id"])
        raise NotImplementedError(self._engine.dialect.name)

    def record_many(self, records: Sequence[AuditRecord]) -> None:
        if not records:
            return
        try:
            with self._engine.begin() as conn:
                conn.execute(self._insert(), [asdict(r) for r in records])
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"audit insert failed: {exc.__class__.__name__}") from exc

    def count_by_outcome(self) -> dict[str, int]:
        with self._engine.connect() as conn:
            rows = conn.execute(select(AuditRow.outcome, func.count()).group_by(AuditRow.outcome))
            return {outcome: int(n) for outcome, n in rows}

    def applied_event_ids(self) -> set[str]:
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(AuditRow.event_id).where(AuditRow.outcome.in_(("applied", "duplicate")))
            )
            return {r[0] for r in rows}

    def lags_ms(self, event_ids: Sequence[str] | None = None) -> list[float]:
        query = select(AuditRow.lag_ms).where(AuditRow.outcome == "applied")
        if event_ids is not None:
            query = query.where(AuditRow.event_id.in_(event_ids))
        with self._engine.connect() as conn:
            return [float(r[0]) for r in conn.execute(query) if r[0] is not None]

    def rows(self, limit: int = 100) -> list[dict[str, Any]]:
        with self._engine.connect() as conn:
            result = conn.execute(
                select(AuditRow.__table__).order_by(AuditRow.id.desc()).limit(limit)
            )
            return [dict(r._mapping) for r in result]
