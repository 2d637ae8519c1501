"""The exception tree. Every exception cachecoh defines derives from ``CachecohError``.

Classes that used to be plain ``ValueError``/``RuntimeError`` keep that built-in as a second
base, so existing ``except ValueError`` handlers still work. Where each one lives is in
brackets; what a caller does with it on the right::

    CachecohError
    ├── ConfigurationError         CACHECOH_* variables that are unusable, each named
    │                              (services.settings turns pydantic's errors into it)
    ├── ContractError              a contract file is unusable at load: ``file``, ``json_path``
    │   ├── MappingFileError       a mapping file (mappings/*.json)
    │   ├── PolicyFileError        admission policy, lexicon [adapters.contract_files]
    │   └── CatalogFileError       catalog.json, attributes.json [adapters.catalog_files]
    ├── ExtraMissing               an optional extra is not installed; says which
    │   ├── VectorExtraMissing     [harness.evaluation.embedders]
    │   ├── PlotExtraMissing       [harness.evaluation.plot]
    │   └── HarnessExtraMissing    [harness]: the checks need the harness extra
    ├── InvalidEvent               an event that can never be applied: DLQ with ``reason``
    ├── InvalidRequest             a chat request the gateway cannot serve: 400 [core.chat_request]
    ├── TransientError             a dependency is down; retry with backoff, never skip
    │   ├── StoreUnavailable       Redis
    │   ├── DatabaseUnavailable    the SQL database (audit, spec store, outbox)
    │   ├── DeadLetterUnavailable  the broker did not take a dead letter
    │   ├── EventLogUnavailable    the broker did not answer a read of the log or offsets
    │   └── BrokerUnavailable      no Kafka broker answered within the timeout
    ├── ReplicaBehind              Redis lost writes the log still has: re-apply first
    ├── AuditRejected              the database refused an audit row's content (not transient)
    ├── PublishError               the broker did not take an event (publisher side)
    ├── UnknownProduct             the spec store has no such product [adapters.sql.spec_store]
    ├── SpecChangeError            a spec change does not fit the product's shape [core.catalog]
    ├── PolicyError                an admission-policy document is inconsistent
    │                              [core.semantic.admission]; the loader re-raises it as
    │                              PolicyFileError with the file name
    ├── PromptError                [core.prompt] EmptyQuestionError, InvalidTurnError,
    │   │                          SopCatalogError
    │   └── TenantSaltError        MissingTenantError, InvalidSaltKeyError
    ├── VocabularyError            the attribute vocabulary cannot render a canonical question
    │                              [core.canonical_question]
    ├── AnswerFormatError          a stored answer body this version cannot read (a miss)
    ├── NotCacheable               an upstream answer the cache cannot hold [core.answers]
    ├── gateway [services.gateway] Unauthorized, RateLimited, BreakerOpen, UnknownCacheKey,
    │                              UpstreamError (UpstreamTimeout, UpstreamUnavailable,
    │                              UpstreamRejected, UpstreamMalformed), BodyTooLarge,
    │                              HeadersTooLarge [gateway.server]
    ├── RoutingError               [core.routing] NoHealthyReplicaError
    ├── PrefixCacheError           [core.prefix_blocks] UnknownAdmissionError
    ├── EngineError                [inference.engine] ModelNotFoundError,
    │                              ContextLengthExceededError
    ├── KvEventDecodeError         not vLLM's KV-event wire format [inference.kv_event_wire]
    ├── TokenizerLoadError         [inference.tokenization]
    ├── MetricsParseError          a replica's /metrics text [inference.metrics_bridge]
    ├── LaunchError                a child process did not come up [inference.launcher]
    ├── StackStartError            a process of the embedded stack did not come up [harness.stack]
    └── QueryFileError             a labelled query file line [harness.evaluation.semantic]

Lower-layer errors (redis, SQLAlchemy, kafka, pydantic) are translated once, at the
boundary that meets them, with ``raise ... from exc``. The ``cachecoh`` command prints a
``CachecohError`` that reaches it as one line and exits with status 2 (``services.cli``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from os import PathLike
from pathlib import Path
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

    #: What an operator does about it; the CLI prints it after the message.
    hint: str = ""


class ConfigurationError(CachecohError):
    """Settings that cannot be used: ``problems`` maps each variable to what is wrong."""

    hint = "set them in the environment or .env; `cachecoh config` lists every variable"

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        missing = [name for name, problem in self.problems.items() if problem == MISSING]
        parts = [
            f"{name}: {problem}" for name, problem in self.problems.items() if name not in missing
        ]
        if missing:
            parts.append(f"required but not set: {', '.join(missing)}")
        super().__init__("; ".join(parts))


#: The ``ConfigurationError`` problem of a required variable that is not set.
MISSING = "required, not set"


class ContractError(CachecohError):
    """A contract file (JSON Schema, mapping, policy, prices) is missing or invalid."""

    hint = "fix the file, or point CACHECOH_SCHEMAS_DIR / CACHECOH_DATA_DIR at valid copies"

    def __init__(self, file: str | PathLike[str], json_path: str, message: str) -> None:
        self.path = Path(file)
        self.file = str(file)
        self.json_path = json_path
        self.message = message
        super().__init__(f"{self.file}: {json_path}: {message}")


class MappingFileError(ContractError):
    """A mapping file failed validation; ``file`` and ``json_path`` say where."""

    hint = "fix the mapping file, or point CACHECOH_MAPPINGS_DIR at a valid folder"


class PolicyFileError(ContractError):
    """The admission policy or the semantic lexicon failed validation."""

    hint = "fix the file, or point CACHECOH_DATA_DIR at a folder with valid ones"


class ExtraMissing(CachecohError, RuntimeError):
    """An optional extra (``pip install 'cachecoh[...]'``) is needed and not installed."""


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

    hint = "is Redis running? check CACHECOH_REDIS_URL"


class DatabaseUnavailable(TransientError):
    """The SQL database did not take a read or write."""

    hint = "is the database running? check CACHECOH_DATABASE_URL"


class PublishError(CachecohError):
    """The broker did not acknowledge an event."""

    hint = "is Kafka running? check CACHECOH_KAFKA_BOOTSTRAP"


class DeadLetterUnavailable(TransientError):
    """The dead-letter topic did not acknowledge a record."""


class BrokerUnavailable(TransientError):
    """No Kafka broker answered at the bootstrap address within the timeout."""

    hint = "is Kafka running? check CACHECOH_KAFKA_BOOTSTRAP"


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
