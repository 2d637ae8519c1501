"""The exception tree. Every error cachecoh raises on purpose derives from ``CachecohError``.

::

    CachecohError
    ├── ContractError            a shipped file (schema, mapping, policy) is unusable at load
    │   └── MappingFileError     a mapping file is invalid: names the file and the JSON path
    ├── InvalidEvent             an incoming event cannot be applied: DLQ with ``reason``
    ├── TransientError           a dependency is down; retry with backoff, never skip
    │   ├── StoreUnavailable      Redis
    │   ├── DatabaseUnavailable   the SQL database (audit, spec store, outbox)
    │   ├── DeadLetterUnavailable the broker did not take a dead letter
    │   └── EventLogUnavailable   the broker did not answer a read of the log or offsets
    ├── ReplicaBehind            Redis lost writes the log still has: re-apply before going on
    ├── AuditRejected            the database refused an audit row's content (not transient)
    └── PublishError             the broker did not take an event (publisher side)

Lower-layer errors (redis, SQLAlchemy, kafka) are translated once, in the adapters,
with ``raise ... from exc``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any


def json_path(parts: Iterable[Any]) -> str:
    """``$.data.changed_fields[2]``: where in a JSON document an error is (jsonschema's
    ``absolute_path`` parts, or any sequence of keys and indexes)."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class CachecohError(Exception):
    """Base class of every error raised on purpose by cachecoh."""


class ContractError(CachecohError):
    """A contract file (JSON Schema, mapping, policy) is missing or invalid."""

    def __init__(self, file: str, json_path: str, message: str) -> None:
        self.file = file
        self.json_path = json_path
        self.message = message
        super().__init__(f"{file}: {json_path}: {message}")


class MappingFileError(ContractError):
    """A mapping file failed validation; ``file`` and ``json_path`` say where."""


class InvalidReason(StrEnum):
    """Why an event went to the dead-letter queue (the DLQ ``reason`` header)."""

    OVERSIZED = "oversized"
    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    SCHEMA_VIOLATION = "schema_violation"
    KEY_MISMATCH = "key_mismatch"
    UNKNOWN_PRODUCT = "unknown_product"
    UNKNOWN_FIELD = "unknown_field"
    #: A bug met this record; its product was invalidated whole, the record kept here.
    INTERNAL_ERROR = "internal_error"


class InvalidEvent(CachecohError):
    """An event that can never be applied. Carries the machine-readable reason."""

    def __init__(self, reason: InvalidReason, detail: str, json_path: str = "$") -> None:
        self.reason = reason
        self.detail = detail
        self.json_path = json_path
        super().__init__(f"{reason.value}: {json_path}: {detail}")


class TransientError(CachecohError):
    """A dependency failed in a way that may heal; the caller retries, never skips."""


class StoreUnavailable(TransientError):
    """Redis did not answer or refused the command."""


class DatabaseUnavailable(TransientError):
    """The SQL database did not take a read or write."""


class PublishError(CachecohError):
    """The broker did not acknowledge an event."""


class DeadLetterUnavailable(TransientError):
    """The dead-letter topic did not acknowledge a record."""


class ReplicaBehind(CachecohError):
    """Redis holds less of the event log than the worker recorded or committed (lost
    writes, a restore, a failover, a flush) or a partition is not verified yet: the worker
    re-applies from Redis's offset before it acknowledges anything new."""

    def __init__(self, partitions: dict[str, int], why: str) -> None:
        self.partitions = partitions  # 'o:<topic>:<partition>' → offset Redis holds
        super().__init__(f"{why}: {partitions}")


class EventLogUnavailable(TransientError):
    """The broker did not answer a read of the event log or of committed offsets."""


class AuditRejected(CachecohError):
    """The database refused audit rows for their content; retrying them cannot help."""
