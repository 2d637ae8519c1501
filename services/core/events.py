"""The ``ProductSpecUpdated`` event: a CloudEvents 1.0 structured-mode JSON envelope.

Parsing is pure: bytes in, a frozen event or ``InvalidEvent`` out. The JSON Schema
validator is built once at start (``services.adapters.contract_files``) and handed in.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from services.core.errors import InvalidEvent, InvalidReason, json_path

EVENT_TYPE = "com.cachecoh.product.spec.updated.v1"
CLOUDEVENTS_SPECVERSION = "1.0"
#: Events larger than this are refused before parsing (DLQ reason ``oversized``).
DEFAULT_MAX_EVENT_BYTES = 64 * 1024


class SchemaValidator(Protocol):
    """What we need of a JSON Schema validator (a port, so the core stays pure)."""

    def is_valid(self, instance: Any) -> bool: ...

    def iter_errors(self, instance: Any) -> Any: ...


@dataclass(frozen=True, slots=True)
class ProductSpecUpdated:
    """A business system changed some fields of one product's spec."""

    event_id: str
    source: str
    time: datetime
    product_id: str
    spec_version: int
    changed_fields: tuple[str, ...]
    tenant: str | None = None

    def to_cloudevent(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "product_id": self.product_id,
            "spec_version": self.spec_version,
            "changed_fields": list(self.changed_fields),
        }
        if self.tenant is not None:
            data["tenant"] = self.tenant
        return {
            "specversion": CLOUDEVENTS_SPECVERSION,
            "id": self.event_id,
            "source": self.source,
            "type": EVENT_TYPE,
            "time": self.time.astimezone(UTC)
            .isoformat(timespec="microseconds")
            .replace("+00:00", "Z"),
            "subject": self.product_id,
            "datacontenttype": "application/json",
            "data": data,
        }

    def to_bytes(self) -> bytes:
        return json.dumps(self.to_cloudevent(), separators=(",", ":"), ensure_ascii=False).encode()

    @property
    def kafka_key(self) -> bytes:
        return self.product_id.encode()

    @property
    def identity(self) -> EventIdentity:
        """CloudEvents identify an event by (``source``, ``id``): an id alone is unique
        only per source, so every dedupe (marker, audit, replay) keys on both."""
        return EventIdentity(self.source, self.event_id)


#: The standard library's JSON string encoder (``ensure_ascii=False``), C when available.
_json_string = json.encoder.encode_basestring


@dataclass(frozen=True, slots=True)
class EventIdentity:
    source: str
    event_id: str

    @property
    def dedupe_key(self) -> str:
        """One unambiguous string for both parts (JSON, so no separator can collide)."""
        # What ``json.dumps([source, id], ensure_ascii=False)`` writes, by its own string
        # encoder (on every event; the list encoder around it is most of its cost).
        return f"[{_json_string(self.source)}, {_json_string(self.event_id)}]"

    def __str__(self) -> str:
        return f"{self.source}#{self.event_id}"


def digest_of(raw: bytes | None) -> str:
    """How a Kafka record key (or any producer-chosen bytes) appears in dead letters,
    audit rows and logs: a digest, so personal data in a key never ends up at rest."""
    if raw is None:
        return "none"
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


def new_event(
    product_id: str,
    changed_fields: tuple[str, ...] | list[str],
    spec_version: int,
    *,
    source: str,
    tenant: str | None = None,
    event_id: str | None = None,
    time: datetime | None = None,
) -> ProductSpecUpdated:
    """Build an event with a fresh id and the current time (the lag clock starts here)."""
    return ProductSpecUpdated(
        event_id=event_id or str(uuid.uuid4()),
        source=source,
        time=time or datetime.now(UTC),
        product_id=product_id,
        spec_version=spec_version,
        changed_fields=tuple(changed_fields),
        tenant=tenant,
    )


def parse_event(
    raw: bytes | None,
    key: bytes | None,
    validator: SchemaValidator,
    *,
    max_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> ProductSpecUpdated:
    """Decode and validate one Kafka record. Raises ``InvalidEvent`` with a reason."""
    if raw is None:
        raise InvalidEvent(InvalidReason.NOT_JSON, "empty record value (tombstone)")
    if len(raw) > max_bytes:
        raise InvalidEvent(InvalidReason.OVERSIZED, f"{len(raw)} bytes > limit {max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEvent(InvalidReason.NOT_UTF8, f"byte {exc.start}: {exc.reason}") from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidEvent(
            InvalidReason.NOT_JSON, f"line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    if "\\u" in text:  # a lone surrogate can only arrive as an escape
        _refuse_lone_surrogates(doc)
    if validator.is_valid(doc):
        return _from_valid_document(doc, key)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        # Name the rule, never echo the offending value: it could be anything.
        raise InvalidEvent(
            InvalidReason.SCHEMA_VIOLATION,
            f"{first.validator} {first.validator_value!r}"[:300],
            json_path(first.absolute_path),
        )
    raise InvalidEvent(InvalidReason.SCHEMA_VIOLATION, "rejected by the schema")


def _refuse_lone_surrogates(doc: Any) -> None:
    """JSON may escape a lone surrogate (\\ud800): valid JSON, but no Unicode text;
    such an id could not be encoded into a key or stored."""
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidEvent(
            InvalidReason.NOT_UTF8, f"lone surrogate escape at character {exc.start}"
        ) from exc


def _parse_time(value: str) -> datetime:
    # The schema's pattern admits strings that are no instant (month 13, offset +99:00).
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidEvent(
            InvalidReason.SCHEMA_VIOLATION, "time is not a real instant", "$.time"
        ) from exc
    if parsed.tzinfo is None:
        raise InvalidEvent(InvalidReason.SCHEMA_VIOLATION, "time has no offset", "$.time")
    return parsed


def _from_valid_document(doc: Mapping[str, Any], key: bytes | None) -> ProductSpecUpdated:
    data = doc["data"]
    product_id = str(data["product_id"])
    if doc["subject"] != product_id:
        raise InvalidEvent(
            InvalidReason.KEY_MISMATCH,
            f"subject {digest_of(str(doc['subject']).encode('utf-8', 'replace'))} "
            f"!= data.product_id {product_id!r}",
            "$.subject",
        )
    if key is not None and key != product_id.encode():
        # The key decides the partition, and per-product order depends on it. The key's
        # bytes are the producer's: name them by digest only, never echo them.
        raise InvalidEvent(
            InvalidReason.KEY_MISMATCH,
            f"Kafka key {digest_of(key)} != product id {product_id!r}",
            "$.subject",
        )
    return ProductSpecUpdated(
        event_id=str(doc["id"]),
        source=str(doc["source"]),
        time=_parse_time(str(doc["time"])),
        product_id=product_id,
        spec_version=int(data["spec_version"]),
        changed_fields=tuple(dict.fromkeys(str(f) for f in data["changed_fields"])),
        tenant=data.get("tenant"),
    )
