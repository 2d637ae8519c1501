"""`cachecoh audit tail|show` over the real audit table (Postgres and SQLite), written by
the worker's own writer: readable rows, every tag of an event, no payload values, a clear
error when the database is not there, and --follow printing rows as they are written."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.adapters.sql.audit import AuditLog, AuditRecord
from services.adapters.sql.engine import make_engine, upgrade
from services.cli import app

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
#: What a rejected payload might carry; the audit's reason text quotes it.
PAYLOAD_VALUE = "SECRET-PAYLOAD-VALUE-4711"


def _record(event_id: str, outcome: str, **extra: object) -> AuditRecord:
    now = datetime.now(UTC)
    fields: dict[str, object] = {
        "event_id": event_id,
        "product_id": "iphone_15",
        "spec_version": 7,
        "tenant": "acme",
        "changed_fields": ["battery_life.video_playback"],
        "tags": ["iphone_15/p", "iphone_15/s:battery_life", "iphone_15/i:battery"],
        "outcome": outcome,
        "reason": None,
        "topic": "product-spec-updated",
        "partition": 1,
        "offset": 41,
        "event_time": now - timedelta(milliseconds=3),
        "applied_at": now,
        "lag_ms": 2.5,
        "worker": "worker-1",
        **extra,
    }
    return AuditRecord(**fields)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    url = (
        f"sqlite:///{tmp_path / 'audit.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    upgrade(url)
    yield url


@pytest.fixture
def events(database_url: str) -> dict[str, str]:
    """Three consumed records: applied, duplicate, dead-lettered (reason quotes a value)."""
    ids = {
        "applied": str(uuid.uuid4()),
        "duplicate": str(uuid.uuid4()),
        "dead_lettered": f"dlq:product-spec-updated:2:{uuid.uuid4().int % 10**9}",
    }
    engine = make_engine(database_url)
    AuditLog(engine).record_many(
        [
            _record(ids["applied"], "applied", event_source="erp"),
            _record(ids["duplicate"], "duplicate", lag_ms=None),
            _record(
                ids["dead_lettered"],
                "dead_lettered",
                product_id=None,
                spec_version=None,
                tenant=None,
                changed_fields=[],
                tags=[],
                reason=f"schema_violation at $.data.spec_version: '{PAYLOAD_VALUE}' is not "
                "of type 'integer'",
                lag_ms=None,
            ),
        ]
    )
    engine.dispose()
    return ids


def _run(database_url: str, *args: str, columns: int = 200) -> tuple[int, str]:
    env = {"CACHECOH_DATABASE_URL": database_url, "COLUMNS": str(columns)}
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.output


def test_tail_shows_the_newest_rows_readably_and_no_payload_value(
    database_url: str, events: dict[str, str]
) -> None:
    code, out = _run(database_url, "audit", "tail", "-n", "3")
    assert code == 0, out
    lines = out.splitlines()
    assert "outcome" in lines[0] and "event" in lines[0]  # one header
    body = lines[1:]
    assert len(body) == 3
    for line, (outcome, event_id) in zip(body, events.items(), strict=True):
        assert outcome in line and event_id in line
    assert "battery_life.video_playback" in body[0] and "2.5" in body[0] and "1@41" in body[0]
    assert "schema_violation at $.data.spec_version" in body[2]
    assert PAYLOAD_VALUE not in out


def test_a_narrow_terminal_gets_two_lines_per_row_with_whole_event_ids(
    database_url: str, events: dict[str, str]
) -> None:
    code, out = _run(database_url, "audit", "tail", "-n", "3", columns=80)
    assert code == 0, out
    lines = out.splitlines()
    assert len(lines) == 6
    for (outcome, event_id), (row, id_line) in zip(
        events.items(), zip(lines[::2], lines[1::2], strict=True), strict=True
    ):
        assert outcome in row and id_line.split() == ["event", event_id]
    assert PAYLOAD_VALUE not in out


def test_tail_json_gives_one_object_per_row(database_url: str, events: dict[str, str]) -> None:
    code, out = _run(database_url, "audit", "tail", "-n", "2", "--json")
    assert code == 0, out
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["event_id"] for r in rows] == [events["duplicate"], events["dead_lettered"]]
    assert rows[1]["reason"] == "schema_violation at $.data.spec_version"


def test_show_lists_every_tag_of_one_event(database_url: str, events: dict[str, str]) -> None:
    code, out = _run(database_url, "audit", "show", events["applied"])
    assert code == 0, out
    shown = {}
    for line in out.splitlines():
        name, _, value = line.partition("  ")
        shown[name.strip() or f"more {len(shown)}"] = value.strip()
    assert shown["event"] == events["applied"]
    assert shown["spec version"] == "7" and shown["worker"] == "worker-1"
    assert shown["read from"] == "product-spec-updated[1]@41"
    assert "iphone_15/p" in shown["tags bumped (3)"]
    assert {"iphone_15/s:battery_life", "iphone_15/i:battery"} <= set(shown.values())

    code, out = _run(database_url, "audit", "show", events["dead_lettered"])
    assert code == 0 and "detail withheld" in out and PAYLOAD_VALUE not in out


def test_show_with_a_source_shows_only_that_source_s_event(
    database_url: str, events: dict[str, str]
) -> None:
    # The same id from another source is another event (ids are unique per source).
    pim = _record(
        events["applied"],
        "applied",
        event_source="pim",
        offset=42,
        changed_fields=["weight"],
        tags=["iphone_15/p", "iphone_15/s:weight"],
    )
    AuditLog(make_engine(database_url)).record_many([pim])
    code, out = _run(database_url, "audit", "show", events["applied"], "--source", "pim")
    assert code == 0
    assert re.search(r"^source\s+pim\s*$", out, re.MULTILINE)
    assert "iphone_15/s:weight" in out and "battery_life" not in out

    code, out = _run(database_url, "audit", "show", events["applied"], "--json")
    assert code == 0
    assert sorted(row["source"] for row in json.loads(out)) == ["erp", "pim"]

    code, _ = _run(database_url, "audit", "show", events["applied"], "--source", "crm")
    assert code == 1


def test_show_of_an_unknown_event_fails_clearly(database_url: str) -> None:
    code, out = _run(database_url, "audit", "show", "no-such-event")
    assert code == 1 and "no audit row for event 'no-such-event'" in out


def test_an_unreachable_database_is_one_line_not_a_traceback() -> None:
    code, out = _run("postgresql+psycopg://postgres@127.0.0.1:1/test", "audit", "tail")
    assert code == 2
    assert "cannot read the audit table" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) <= 3


def test_follow_prints_rows_as_they_are_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    upgrade(url)
    process = subprocess.Popen(
        [sys.executable, "-m", "services.cli", *("audit", "tail", "--follow", "--json"), "-n", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CACHECOH_DATABASE_URL": url},
        cwd=ROOT,
    )
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    engine = make_engine(url)
    try:
        event_ids = [str(uuid.uuid4()) for _ in range(3)]
        for event_id in event_ids:
            AuditLog(engine).record_many([_record(event_id, "applied")])
            assert json.loads(lines.get(timeout=30))["event_id"] == event_id
    finally:
        engine.dispose()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert process.returncode == 0
