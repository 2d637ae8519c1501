"""The audit insert is compiled once and fed its rows through each column's own bind
processor: rows read back exactly as those SQLAlchemy's own insert writes (Postgres and
SQLite), a redelivered event keeps its first row, a refused row is a typed error."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from services.adapters.sql.audit import AuditLog, AuditRecord
from services.adapters.sql.engine import insert_or_ignore, make_engine, upgrade
from services.adapters.sql.schema import AuditRow
from services.core.errors import AuditRejected

pytestmark = pytest.mark.integration


def _records(token: str) -> list[AuditRecord]:
    at = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)
    applied = AuditRecord(
        event_id=f"e-{token}",
        event_source="pim",
        product_id="iphone_15",
        spec_version=2**40,
        tenant="acme",
        changed_fields=["battery_life", "price.256GB"],
        tags=["iphone_15/s:battery_life", "iphone_15/s:price.*"],
        outcome="applied",
        reason=None,
        topic="spec",
        partition=3,
        offset=2**35,
        event_time=at,
        applied_at=at + timedelta(milliseconds=4),
        lag_ms=4.25,
        worker="w-1",
    )
    dead = replace(
        applied,
        event_id=f"dlq:spec:3:{token}",
        event_source="",
        product_id=None,
        spec_version=None,
        tenant=None,
        changed_fields=[],
        tags=[],
        outcome="dead_lettered",
        reason="not_json at $ (key sha256:00)",
        event_time=None,
        lag_ms=None,
    )
    return [applied, dead]


def _rows(url: str, token: str) -> list[dict[str, Any]]:
    with make_engine(url).connect() as conn:
        rows = conn.execute(
            select(AuditRow.__table__)
            .where(AuditRow.event_id.endswith(token))
            .order_by(AuditRow.id)
        )
        return [{k: v for k, v in r._mapping.items() if k != "id"} for r in rows]


@pytest.fixture(params=["sqlite", "postgres"])
def two_databases(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    if request.param == "sqlite":
        urls = (f"sqlite:///{tmp_path / 'core.db'}", f"sqlite:///{tmp_path / 'compiled.db'}")
    else:
        base: str = request.getfixturevalue("postgres_url")
        urls = (base, base)  # one schema: the second write goes to another source
    for url in urls:
        upgrade(url)
    return urls


def test_rows_read_back_as_sqlalchemys_own_insert_writes_them(
    two_databases: tuple[str, str],
) -> None:
    core_url, compiled_url = two_databases
    token = uuid.uuid4().hex
    records = _records(token)
    same_database = core_url == compiled_url
    mine = [replace(r, event_source=r.event_source + "+compiled") for r in records]
    engine = make_engine(core_url)
    with engine.begin() as conn:
        conn.execute(
            insert_or_ignore(engine, AuditRow, ["event_source", "event_id"]),
            [{f: getattr(r, f) for f in r.__dataclass_fields__} for r in records],
        )
    log = AuditLog(make_engine(compiled_url))
    log.record_many(mine)
    log.record_many(mine)  # redelivered: the first rows stay, nothing fails
    written = _rows(compiled_url, token)
    if same_database:
        core = [r for r in written if not r["event_source"].endswith("+compiled")]
        written = [r for r in written if r["event_source"].endswith("+compiled")]
    else:
        core = _rows(core_url, token)
    assert len(written) == len(core) == 2
    for ours, theirs in zip(written, core, strict=True):
        assert ours["event_source"] == theirs["event_source"] + "+compiled"
        assert {k: v for k, v in ours.items() if k != "event_source"} == {
            k: v for k, v in theirs.items() if k != "event_source"
        }


def test_a_refused_row_is_a_typed_error(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    upgrade(url)
    without_id = replace(_records("t")[0], event_id=None)  # type: ignore[arg-type]
    with pytest.raises(AuditRejected):  # NOT NULL
        AuditLog(make_engine(url)).record_many([without_id])


def test_a_recurring_list_is_serialized_once_and_reads_back_the_same(
    two_databases: tuple[str, str],
) -> None:
    """The same changed fields and tags recur (one plan per product and fields): each
    distinct list goes through its JSON column's processor once."""
    _, url = two_databases
    token = uuid.uuid4().hex
    applied = _records(token)[0]
    other_tags = ["iphone_15/s:weight"]
    records = [
        replace(applied, event_id=f"e{n}-{token}", tags=other_tags if n == 2 else applied.tags)
        for n in range(4)
    ]
    log = AuditLog(make_engine(url))
    calls: list[Any] = []

    def counted(process: Any) -> Any:
        def run(value: Any) -> Any:
            calls.append(value)
            return process(value)

        return run

    insert = log._insert
    log._insert = replace(
        insert,
        processors=tuple(
            counted(p) if json_list and p is not None else p
            for p, json_list in zip(insert.processors, insert.json_lists, strict=True)
        ),
    )
    log.record_many(records)
    # changed_fields: one list; tags: two lists (None items would mean no JSON columns).
    assert sorted(map(tuple, calls)) == sorted(
        [tuple(applied.changed_fields), tuple(applied.tags), tuple(other_tags)]
    )
    rows = {r["event_id"]: r for r in _rows(url, token)}
    for record in records:
        assert rows[record.event_id]["tags"] == record.tags
        assert rows[record.event_id]["changed_fields"] == record.changed_fields
