"""The one loader of the project's contract files, each validated against its JSON Schema.

- mapping files ``*.json`` in ``CACHECOH_MAPPINGS_DIR`` (``mapping.schema.json``) →
  ``MappingSet``;
- ``admission_policy.json`` in ``CACHECOH_DATA_DIR`` (``admission-policy.schema.json``) →
  ``AdmissionPolicy``;
- ``semantic_lexicon.json`` in ``CACHECOH_DATA_DIR`` (``semantic-lexicon.schema.json``) →
  a read-only mapping (the extractor builds its typed ``SlotLexicon`` from it);
- ``prices.json`` in ``CACHECOH_DATA_DIR`` (``prices.schema.json``) → ``PriceTable``;
- the event contract ``product-spec-updated.schema.json`` → a compiled ``FastValidator``.

Schemas come from ``CACHECOH_SCHEMAS_DIR``. Every file is read and validated once at
start; a bad one fails here with a ``ContractError`` subclass naming the file and the JSON
path (``MappingFileError`` for mapping files, ``PolicyFileError`` for the policy files).
``load_contracts`` loads all of them (``cachecoh contracts``). The catalog and attribute
vocabulary are not contract files and are loaded elsewhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError

from services.core.csr import PriceTable, price_table_from_dict
from services.core.errors import ContractError, MappingFileError, PolicyFileError, json_path
from services.core.mapping import FieldRule, MappingSet, Scope, UnknownFieldRule
from services.core.semantic.admission import AdmissionPolicy, PolicyError
from services.paths import SCHEMAS_DIR

EVENT_SCHEMA = "product-spec-updated.schema.json"
MAPPING_SCHEMA = "mapping.schema.json"
ADMISSION_POLICY_SCHEMA = "admission-policy.schema.json"
LEXICON_SCHEMA = "semantic-lexicon.schema.json"
PRICES_SCHEMA = "prices.schema.json"

#: File names inside the data directory (``CACHECOH_DATA_DIR``).
ADMISSION_POLICY_FILE = "admission_policy.json"
LEXICON_FILE = "semantic_lexicon.json"
PRICES_FILE = "prices.json"


def read_json(path: Path, error: type[ContractError] = ContractError) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise error(path, "$", "file not found") from exc
    except IsADirectoryError as exc:
        raise error(path, "$", "is a directory, not a JSON file") from exc
    except UnicodeDecodeError as exc:
        raise error(path, "$", f"not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise error(
            path, "$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc


def load_schema(name: str, schemas_dir: Path = SCHEMAS_DIR) -> dict[str, Any]:
    path = schemas_dir / name
    schema = read_json(path)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ContractError(path, json_path(exc.absolute_path), exc.message) from exc
    if not isinstance(schema, dict):
        raise ContractError(path, "$", "a schema must be an object")
    return schema


class FastValidator:
    """jsonschema-rs decides (microseconds, on every event); python-jsonschema explains a
    failure with its path (rare). Both implement Draft 2020-12 from the same schema."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self._fast = jsonschema_rs.validator_for(schema)
        self._explain = Draft202012Validator(schema)

    def is_valid(self, instance: Any) -> bool:
        return bool(self._fast.is_valid(instance))

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        return self._explain.iter_errors(instance)


@cache
def validator_for(name: str, schemas_dir: Path = SCHEMAS_DIR) -> FastValidator:
    """A compiled validator for a shipped schema (built once per process)."""
    return FastValidator(load_schema(name, schemas_dir))


def validate_document(
    path: Path,
    doc: Any,
    validator: Draft202012Validator | FastValidator,
    error: type[ContractError] = ContractError,
) -> None:
    """Raise ``error`` naming the file and the JSON path of the first violation."""
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        raise error(path, json_path(first.absolute_path), first.message)


def load_document(
    path: Path,
    schema_name: str,
    schemas_dir: Path = SCHEMAS_DIR,
    error: type[ContractError] = ContractError,
) -> Any:
    """Read ``path`` and validate it against ``schema_name``: the path every file takes."""
    document = read_json(path, error)
    validate_document(path, document, validator_for(schema_name, schemas_dir), error)
    return document


def load_mappings(
    mappings_dir: Path,
    *,
    known_slots: Collection[str] | None = None,
    known_intents: Collection[str] | None = None,
    schemas_dir: Path = SCHEMAS_DIR,
) -> MappingSet:
    """Load, validate and merge every ``*.json`` in ``mappings_dir`` into a frozen set.

    Besides the schema, slots and intents must exist in the vocabulary when one is
    given: a misspelt slot would bump a tag no answer carries, i.e. silently nothing.
    """
    if not mappings_dir.is_dir():
        raise MappingFileError(mappings_dir, "$", "not a directory (CACHECOH_MAPPINGS_DIR)")
    files = sorted(mappings_dir.glob("*.json"))
    if not files:
        raise MappingFileError(mappings_dir, "$", "no mapping files (*.json) found")
    rules: dict[Scope, dict[str, FieldRule]] = {Scope.PRODUCT: {}, Scope.STORE: {}}
    unknown: tuple[UnknownFieldRule, str] | None = None
    for path in files:
        doc = load_document(path, MAPPING_SCHEMA, schemas_dir, MappingFileError)
        scope = Scope(doc["scope"])
        if "unknown_fields" in doc:
            rule = UnknownFieldRule(doc["unknown_fields"])
            if unknown is not None and unknown[0] is not rule:
                raise MappingFileError(
                    path,
                    "$.unknown_fields",
                    f"{rule.value!r} contradicts {unknown[0].value!r} in {unknown[1]}",
                )
            unknown = (rule, str(path))
        for field_path, raw in doc["fields"].items():
            where = f"$.fields.{field_path}"
            _check_vocabulary(path, where, "semantic_slots", raw["semantic_slots"], known_slots)
            _check_vocabulary(path, where, "intent_tags", raw["intent_tags"], known_intents)
            if field_path in rules[scope]:
                raise MappingFileError(
                    path,
                    where,
                    f"{scope.value} field already mapped in {rules[scope][field_path].source}",
                )
            rules[scope][field_path] = FieldRule(
                semantic_slots=tuple(raw["semantic_slots"]),
                intent_tags=tuple(raw["intent_tags"]),
                source=path.name,
            )
    return MappingSet(
        product_rules=MappingProxyType(rules[Scope.PRODUCT]),
        store_rules=MappingProxyType(rules[Scope.STORE]),
        unknown_field=unknown[0] if unknown else UnknownFieldRule.INVALIDATE_PRODUCT,
    )


def _check_vocabulary(
    path: Path, where: str, key: str, names: list[str], known: Collection[str] | None
) -> None:
    if known is None:
        return
    for i, name in enumerate(names):
        if name not in known:
            raise MappingFileError(path, f"{where}.{key}[{i}]", f"unknown {key[:-1]} {name!r}")


#: Keys whose string values (at any depth below them) are regular expressions.
_PATTERN_KEYS = frozenset({"patterns", "value_patterns", "hints", "re"})


def _check_regexes(document: Any, path: Path) -> None:
    """Every string under a key named like a pattern list must compile."""

    def walk(node: Any, trail: list[Any], in_patterns: bool) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                walk(value, [*trail, key], in_patterns or key in _PATTERN_KEYS)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, [*trail, index], in_patterns)
        elif isinstance(node, str) and in_patterns:
            try:
                re.compile(node)
            except re.error as exc:
                raise PolicyFileError(path, json_path(trail), f"invalid regex: {exc}") from exc

    walk(document, [], False)


def load_admission_policy(path: Path, schemas_dir: Path = SCHEMAS_DIR) -> AdmissionPolicy:
    document = load_document(path, ADMISSION_POLICY_SCHEMA, schemas_dir, PolicyFileError)
    _check_regexes(document, path)
    try:
        return AdmissionPolicy.from_mapping(document)
    except PolicyError as exc:
        raise PolicyFileError(path, exc.json_path, exc.message) from exc


def load_lexicon(path: Path, schemas_dir: Path = SCHEMAS_DIR) -> Mapping[str, Any]:
    """The lexicon document, read-only at the top (the extractor builds its typed form)."""
    document = load_document(path, LEXICON_SCHEMA, schemas_dir, PolicyFileError)
    _check_regexes(document, path)
    if not isinstance(document, dict):  # pragma: no cover - the schema requires an object
        raise PolicyFileError(path, "$", "must be an object")
    return MappingProxyType(document)


def load_price_table(path: Path, schemas_dir: Path = SCHEMAS_DIR) -> PriceTable:
    """The CSR price table."""
    document = load_document(path, PRICES_SCHEMA, schemas_dir)
    try:
        return price_table_from_dict(document)
    except ValueError as exc:
        raise ContractError(path, "$.default_model", str(exc)) from exc


@dataclass(frozen=True, slots=True)
class Contracts:
    """Every contract file, loaded and validated."""

    event_validator: FastValidator
    mappings: MappingSet
    admission: AdmissionPolicy
    lexicon: Mapping[str, Any]
    prices: PriceTable


def load_contracts(
    *,
    schemas_dir: Path,
    mappings_dir: Path,
    data_dir: Path,
    known_slots: Collection[str] | None = None,
    known_intents: Collection[str] | None = None,
    prices_file: Path | None = None,
) -> Contracts:
    return Contracts(
        event_validator=validator_for(EVENT_SCHEMA, schemas_dir),
        mappings=load_mappings(
            mappings_dir,
            known_slots=known_slots,
            known_intents=known_intents,
            schemas_dir=schemas_dir,
        ),
        admission=load_admission_policy(data_dir / ADMISSION_POLICY_FILE, schemas_dir),
        lexicon=load_lexicon(data_dir / LEXICON_FILE, schemas_dir),
        prices=load_price_table(prices_file or data_dir / PRICES_FILE, schemas_dir),
    )
