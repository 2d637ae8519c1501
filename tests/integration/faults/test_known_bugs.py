"""Regression tests for inputs the fuzzer found that broke the coherence worker
(docs/faults.md, "Known bugs", all fixed): each states the behaviour promise 3 needs."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from services.adapters.contract_files import EVENT_SCHEMA, validator_for
from services.adapters.sql.audit import AuditLog, AuditRecord
from services.adapters.sql.engine import make_engine, upgrade
from services.core.errors import InvalidEvent
from services.core.events import ProductSpecUpdated, new_event, parse_event
from services.core.keys import KeySpace

pytestmark = [pytest.mark.integration]
VALIDATOR = validator_for(EVENT_SCHEMA)


def _record(**changes: object) -> bytes:
    doc = new_event("iphone_15", ["weight"], 2, source="fuzz").to_cloudevent()
    for path, value in changes.items():
        target = doc["data"] if path in ("spec_version",) else doc
        target[path] = value
    return json.dumps(doc).encode()


def _accepted_or_rejected(raw: bytes) -> ProductSpecUpdated | None:
    """What the worker needs of parsing: an event, or ``InvalidEvent`` (→ DLQ)."""
    try:
        return parse_event(raw, b"iphone_15", VALIDATOR)
    except InvalidEvent:
        return None


@pytest.mark.parametrize(
    "time", ["2024-13-01T00:00:00Z", "2024-02-31T00:00:00Z", "2024-01-01T10:00:00+99:00"]
)
def test_a_time_that_fits_the_pattern_but_is_no_instant_is_dead_lettered(time: str) -> None:
    # Was: ValueError escaped parse_event and the faust agent crashed.
    assert _accepted_or_rejected(_record(time=time)) is None


def test_an_event_id_with_a_lone_surrogate_gets_a_dedupe_key_or_is_dead_lettered() -> None:
    # Was: valid JSON ("\\ud800" escape) and valid per schema; encoding the id for the
    # dedupe key raised inside the bump and crashed the agent.
    event = _accepted_or_rejected(_record(id="\ud800x"))
    if event is not None:
        KeySpace("cc").seen_event(event.product_id, event.event_id)


@pytest.mark.parametrize(
    "changes", [{"id": "a\x00b"}, {"spec_version": 2**31}], ids=["nul-in-id", "spec-version-2^31"]
)
def test_every_accepted_event_gets_its_audit_row_on_postgres(
    changes: dict[str, object], postgres_url: str
) -> None:
    # Was: Postgres refused the row (text with NUL; spec_version a 32-bit INTEGER while
    # the schema allows 2^53-1) and the worker retried forever. Now the schema refuses
    # control characters in ids (DLQ) and the column is BIGINT.
    event = _accepted_or_rejected(_record(**changes))
    if event is None:
        assert "id" in changes  # refused at parse: dead-lettered, never reaches the audit
        return
    upgrade(postgres_url)
    AuditLog(make_engine(postgres_url)).record_many(
        [
            AuditRecord(
                event_id=event.event_id,
                product_id=event.product_id,
                spec_version=event.spec_version,
                tenant=None,
                changed_fields=list(event.changed_fields),
                tags=[],
                outcome="applied",
                reason=None,
                topic="known-bugs",
                partition=0,
                offset=0,
                event_time=event.time,
                applied_at=datetime.now(UTC),
                lag_ms=None,
                worker="test",
            )
        ]
    )


def test_a_row_the_database_refuses_is_stored_sanitized(postgres_url: str) -> None:
    """Safety net: whatever the database refuses for its content must not stall the
    stream; the writer stores a sanitized row instead of retrying forever."""
    from services.adapters.sql.audit import sanitized
    from services.core.errors import AuditRejected

    upgrade(postgres_url)
    audit = AuditLog(make_engine(postgres_url))
    record = AuditRecord(
        event_id="nul\x00id-" + datetime.now(UTC).isoformat(),
        product_id="iphone_15",
        spec_version=2**63,
        tenant=None,
        changed_fields=["weight"],
        tags=[],
        outcome="applied",
        reason=None,
        topic="known-bugs",
        partition=0,
        offset=1,
        event_time=None,
        applied_at=datetime.now(UTC),
        lag_ms=None,
        worker="test",
    )
    try:
        audit.record_many([record])
        raise AssertionError("Postgres accepted a NUL in text")
    except AuditRejected:
        pass
    audit.record_many([sanitized(record, "test")])
    assert record.event_id.replace("\x00", "") in audit.applied_event_ids()
