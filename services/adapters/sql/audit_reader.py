"""The coherence audit as an operator reads it (``cachecoh audit tail|show``).

Every query of the audit CLI is here. An event is identified by its CloudEvents
(source, id): an id alone is unique only per source. What leaves this module holds
no payload values: field names, tags, offsets and reason codes only; a dead letter's
detail text (which may quote the rejected payload) is withheld.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Select, select
from sqlalchemy.exc import NoSuchTableError, OperationalError, ProgrammingError

from services.adapters.sql.schema import AuditRow
from services.core.errors import DatabaseUnavailable

DEAD_LETTERED = "dead_lettered"
#: Columns read: every one except the surrogate key, which only orders and pages rows.
_COLUMNS = (
    AuditRow.id,
    AuditRow.event_id,
    AuditRow.event_source,
    AuditRow.product_id,
    AuditRow.spec_version,
    AuditRow.tenant,
    AuditRow.changed_fields,
    AuditRow.tags,
    AuditRow.outcome,
    AuditRow.reason,
    AuditRow.topic,
    AuditRow.partition,
    AuditRow.offset,
    AuditRow.event_time,
    AuditRow.applied_at,
    AuditRow.lag_ms,
    AuditRow.worker,
)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    row_id: int
    event_id: str
    #: The CloudEvents source ("" for rows written before the audit recorded it).
    source: str
    product_id: str | None
    spec_version: int | None
    tenant: str | None
    changed_fields: tuple[str, ...]
    tags: tuple[str, ...]
    outcome: str
    reason: str | None
    topic: str
    partition: int
    offset: int
    event_time: datetime | None
    applied_at: datetime
    lag_ms: float | None
    worker: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.isoformat() if isinstance(value, datetime) else value
        out["changed_fields"] = list(self.changed_fields)
        out["tags"] = list(self.tags)
        return out


def safe_reason(outcome: str, reason: str | None) -> str | None:
    """A dead letter's reason is ``<code> at <json path>: <detail>``; the detail may quote
    the rejected payload, so only code and path are shown. Other reasons name fields."""
    if reason is None or outcome != DEAD_LETTERED:
        return reason
    head, sep, _detail = reason.partition(": ")
    return head if sep else reason


def _entry(row: Any) -> AuditEntry:
    return AuditEntry(
        row_id=int(row.id),
        event_id=row.event_id,
        source=row.event_source,
        product_id=row.product_id,
        spec_version=row.spec_version,
        tenant=row.tenant,
        changed_fields=tuple(row.changed_fields or ()),
        tags=tuple(row.tags or ()),
        outcome=row.outcome,
        reason=safe_reason(row.outcome, row.reason),
        topic=row.topic,
        partition=int(row.partition),
        offset=int(row.offset),
        event_time=row.event_time,
        applied_at=row.applied_at,
        lag_ms=row.lag_ms,
        worker=row.worker,
    )


class AuditReader:
    """Read-only queries over ``coherence_audit`` (Postgres or SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _run(self, query: Select[*tuple[Any, ...]]) -> list[AuditEntry]:
        try:
            with self._engine.connect() as conn:
                return [_entry(row) for row in conn.execute(query)]
        except (OperationalError, ProgrammingError, NoSuchTableError) as exc:
            # No server, or no table yet (not migrated): say which, never the URL.
            raise DatabaseUnavailable(
                f"cannot read the audit table ({exc.__class__.__name__}: "
                f"{str(exc.orig if hasattr(exc, 'orig') else exc).splitlines()[0]}); "
                "is CACHECOH_DATABASE_URL right, and has `cachecoh db upgrade` run?"
            ) from exc

    def latest(self, limit: int) -> list[AuditEntry]:
        """The newest ``limit`` rows, oldest first (as a log reads)."""
        query = select(*_COLUMNS).order_by(AuditRow.id.desc()).limit(limit)
        return list(reversed(self._run(query)))

    def after(self, row_id: int, limit: int = 500) -> list[AuditEntry]:
        """Rows written after ``row_id``, oldest first (``tail --follow``)."""
        query = select(*_COLUMNS).where(AuditRow.id > row_id).order_by(AuditRow.id).limit(limit)
        return self._run(query)

    def event(self, event_id: str, source: str | None = None) -> Sequence[AuditEntry]:
        """The rows of one CloudEvent: (``source``, ``event_id``), or every source's event
        with that id when ``source`` is not given."""
        query = select(*_COLUMNS).where(AuditRow.event_id == event_id)
        if source is not None:
            query = query.where(AuditRow.event_source == source)
        return self._run(query.order_by(AuditRow.id))
