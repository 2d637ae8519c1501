"""Contract files: schemas are valid 2020-12, bad files fail naming file and JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from services.adapters.contract_files import (
    EVENT_SCHEMA,
    load_mappings,
    validator_for,
)
from services.core.errors import InvalidEvent, InvalidReason, MappingFileError
from services.core.events import new_event, parse_event
from services.paths import SCHEMAS_DIR


@pytest.mark.parametrize("path", sorted(SCHEMAS_DIR.glob("*.json")), ids=lambda p: p.name)
def test_every_shipped_schema_is_a_valid_2020_12_schema(path: Path) -> None:
    schema = json.loads(path.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def _write(tmp: Path, name: str, doc: object) -> Path:
    (tmp / name).write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return tmp


GOOD = {
    "version": 1,
    "scope": "product",
    "fields": {"weight": {"semantic_slots": ["weight"], "intent_tags": []}},
}


def test_bad_mapping_names_file_and_json_path(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(GOOD))
    bad["fields"]["weight"]["semantic_slots"] = "weight"
    _write(tmp_path, "m.json", bad)
    with pytest.raises(MappingFileError) as err:
        load_mappings(tmp_path)
    assert err.value.file.endswith("m.json")
    assert err.value.json_path == "$.fields.weight.semantic_slots"


def test_rule_that_bumps_nothing_is_refused(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(GOOD))
    bad["fields"]["weight"]["semantic_slots"] = []
    _write(tmp_path, "m.json", bad)
    with pytest.raises(MappingFileError) as err:
        load_mappings(tmp_path)
    assert err.value.json_path == "$.fields.weight"


def test_misspelt_slot_is_refused_against_the_vocabulary(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(GOOD))
    bad["fields"]["weight"]["semantic_slots"] = ["wieght"]
    _write(tmp_path, "m.json", bad)
    with pytest.raises(MappingFileError) as err:
        load_mappings(tmp_path, known_slots={"weight"})
    assert err.value.json_path == "$.fields.weight.semantic_slots[0]"
    assert "wieght" in err.value.message


def test_duplicate_field_across_files_names_both(tmp_path: Path) -> None:
    _write(tmp_path, "a.json", GOOD)
    _write(tmp_path, "b.json", GOOD)
    with pytest.raises(MappingFileError) as err:
        load_mappings(tmp_path)
    assert err.value.file.endswith("b.json") and "a.json" in err.value.message


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    _write(tmp_path, "m.json", '{"version": 1,\n "scope": }')
    with pytest.raises(MappingFileError) as err:
        load_mappings(tmp_path)
    assert "line 2" in err.value.message


VALIDATOR = validator_for(EVENT_SCHEMA)


def test_valid_event_round_trips() -> None:
    event = new_event("iphone_15", ["battery_life", "price.256GB"], 7, source="s", tenant="acme")
    parsed = parse_event(event.to_bytes(), b"iphone_15", VALIDATOR)
    assert parsed == event


@pytest.mark.parametrize(
    ("raw", "key", "reason"),
    [
        (b"\xff\xfe", None, InvalidReason.NOT_UTF8),
        (b"{", None, InvalidReason.NOT_JSON),
        (None, None, InvalidReason.NOT_JSON),
        (b"[]", None, InvalidReason.SCHEMA_VIOLATION),
        (b"x" * 70_000, None, InvalidReason.OVERSIZED),
    ],
)
def test_invalid_events_carry_a_reason(
    raw: bytes | None, key: bytes | None, reason: InvalidReason
) -> None:
    with pytest.raises(InvalidEvent) as err:
        parse_event(raw, key, VALIDATOR)
    assert err.value.reason is reason


def test_schema_errors_name_the_rule_not_the_value() -> None:
    doc = new_event("iphone_15", ["weight"], 2, source="s").to_cloudevent()
    doc["data"]["tenant"] = "13812345678@example.com"
    with pytest.raises(InvalidEvent) as err:
        parse_event(json.dumps(doc).encode(), None, VALIDATOR)
    assert err.value.json_path == "$.data.tenant"
    assert "13812345678" not in str(err.value)


def test_key_must_match_the_product() -> None:
    event = new_event("iphone_15", ["weight"], 2, source="s")
    with pytest.raises(InvalidEvent) as err:
        parse_event(event.to_bytes(), b"iphone_16", VALIDATOR)
    assert err.value.reason is InvalidReason.KEY_MISMATCH


def test_naive_timestamps_are_refused() -> None:
    doc = new_event("iphone_15", ["weight"], 2, source="s").to_cloudevent()
    doc["time"] = "2026-01-01T00:00:00"
    with pytest.raises(InvalidEvent):
        parse_event(json.dumps(doc).encode(), None, VALIDATOR)
