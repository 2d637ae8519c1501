"""The coherence audit log: one row per consumed record, written idempotently."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Engine, func, select
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError

from services.adapters.sql.engine import insert_or_ignore
from services.adapters.sql.schema import AuditRow
from services.core.errors import AuditRejected, DatabaseUnavailable


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
    #: CloudEvents ``source``; with ``event_id`` the event's identity ("" for a record
    #: without a usable envelope, whose id is then ``dlq:<topic>:<partition>:<offset>``).
    event_source: str = ""


_COLUMNS = tuple(f.name for f in fields(AuditRecord))


#: The audit columns are BIGINT; anything outside is kept as NULL rather than refused.
_BIGINT = range(-(2**63), 2**63)


def sanitized(record: AuditRecord, why: str) -> AuditRecord:
    """A row every database accepts: NULs dropped from text, out-of-range numbers nulled."""

    def clean(text: str | None) -> str | None:
        return None if text is None else text.replace("\x00", "")

    return AuditRecord(
        event_id=clean(record.event_id) or "(empty)",
        event_source=clean(record.event_source) or "",
        product_id=clean(record.product_id),
        spec_version=record.spec_version if record.spec_version in _BIGINT else None,
        tenant=clean(record.tenant),
        changed_fields=[clean(f) or "" for f in record.changed_fields],
        tags=[clean(t) or "" for t in record.tags],
        outcome=record.outcome,
        reason=f"{clean(record.reason) or ''} [audit row sanitized: {why}]".strip(),
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        event_time=record.event_time,
        applied_at=record.applied_at,
        lag_ms=record.lag_ms,
        worker=record.worker,
    )


#: Serialized JSON lists remembered before the memo starts over.
_JSON_KEPT = 16_384


@dataclass(frozen=True, slots=True)
class _CompiledInsert:
    """The audit insert compiled once for the engine's dialect, with each column's own
    bind processor: its rows are made as SQLAlchemy's executemany makes them, without
    the per-row parameter machinery around that (most of an audit write's CPU)."""

    sql: str
    #: parameter order (positional paramstyles), else the parameter names
    names: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]
    positional: bool
    #: which parameters are JSON lists (changed fields, tags): the same lists recur
    #: (one plan per product and fields), so each is serialized once (``_JSON_KEPT``)
    json_lists: tuple[bool, ...] = ()
    _serialized: dict[tuple[int, tuple[str, ...]], Any] = field(default_factory=dict)

    @classmethod
    def of(cls, engine: Engine) -> _CompiledInsert:
        statement = insert_or_ignore(engine, AuditRow, ["event_source", "event_id"])
        compiled = statement.compile(
            dialect=engine.dialect, column_keys=list(_COLUMNS), for_executemany=True
        )
        if set(compiled.binds) != set(_COLUMNS):
            raise RuntimeError(f"the audit insert binds {sorted(compiled.binds)}")
        names = tuple(compiled.positiontup or ()) if compiled.positional else _COLUMNS
        columns = AuditRow.__table__.c
        processors = tuple(
            columns[name].type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
            for name in names
        )
        json_lists = tuple(isinstance(columns[name].type, JSON) for name in names)
        return cls(compiled.string, names, processors, compiled.positional, json_lists)

    def parameters(self, records: Sequence[AuditRecord]) -> list[Any]:
        """Each record's parameters, every value through its column's processor (None
        included, as SQLAlchemy does: a processor decides what None becomes)."""
        columns = tuple(enumerate(zip(self.names, self.processors, self.json_lists, strict=True)))
        serialized = self._serialized
        rows: list[tuple[Any, ...]] = []
        for record in records:
            row = []
            for i, (name, process, json_list) in columns:
                value = getattr(record, name)
                if process is None:
                    row.append(value)
                elif json_list and isinstance(value, list):
                    # A JSON column's processor only serializes: its output depends on
                    # the list's items alone.
                    key = (i, tuple(value))
                    text = serialized.get(key)
                    if text is None:
                        if len(serialized) >= _JSON_KEPT:
                            serialized.clear()
                        text = serialized[key] = process(value)
                    row.append(text)
                else:
                    row.append(process(value))
            rows.append(tuple(row))
        if self.positional:
            return rows
        return [dict(zip(self.names, row, strict=True)) for row in rows]


class AuditLog:
    """Insert-or-ignore by (source, event id): a redelivered event keeps its first row;
    another source's event with the same id gets its own."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._insert = _CompiledInsert.of(engine)

    def record_many(self, records: Sequence[AuditRecord]) -> None:
        if not records:
            return
        try:
            with self._engine.begin() as conn:
                conn.exec_driver_sql(self._insert.sql, self._insert.parameters(records))
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(f"audit insert failed: {exc.__class__.__name__}") from exc
        except SQLAlchemyError as exc:
            # Data, integrity or programming errors: the rows themselves are refused.
            raise AuditRejected(f"audit rows refused: {exc.__class__.__name__}") from exc

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

    def applied_identities(self) -> set[tuple[str, str]]:
        """(source, id) of every applied or duplicate event."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(AuditRow.event_source, AuditRow.event_id).where(
                    AuditRow.outcome.in_(("applied", "duplicate"))
                )
            )
            return {(r[0], r[1]) for r in rows}

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
