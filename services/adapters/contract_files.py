"""Loading the shipped contract files: JSON Schemas and mapping files.

Everything is read and validated once at start; a bad file fails here with an error
that names the file and the JSON path (``ContractError`` / ``MappingFileError``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError

from services.core.errors import ContractError, MappingFileError, json_path
from services.core.mapping import FieldRule, MappingSet, Scope, UnknownFieldRule
from services.paths import SCHEMAS_DIR

EVENT_SCHEMA = "product-spec-updated.schema.json"
MAPPING_SCHEMA = "mapping.schema.json"


def read_json(path: Path, error: type[ContractError] = ContractError) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise error(str(path), "$", "file not found") from exc
    except UnicodeDecodeError as exc:
        raise error(str(path), "$", f"not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise error(
            str(path), "$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc


def load_schema(name: str, schemas_dir: Path = SCHEMAS_DIR) -> dict[str, Any]:
    path = schemas_dir / name
    schema = read_json(path)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ContractError(str(path), json_path(exc.absolute_path), exc.message) from exc
    if not isinstance(schema, dict):
        raise ContractError(str(path), "$", "a schema must be an object")
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
    validator: Draft202012Validator,
    error: type[ContractError] = ContractError,
) -> None:
    """Raise ``error`` naming the file and the JSON path of the first violation."""
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        raise error(str(path), json_path(first.absolute_path), first.message)


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
    files = sorted(mappings_dir.glob("*.json"))
    if not files:
        raise MappingFileError(str(mappings_dir), "$", "no mapping files (*.json) found")
    validator = Draft202012Validator(load_schema(MAPPING_SCHEMA, schemas_dir))
    rules: dict[Scope, dict[str, FieldRule]] = {Scope.PRODUCT: {}, Scope.STORE: {}}
    unknown: tuple[UnknownFieldRule, str] | None = None
    for path in files:
        doc = read_json(path, MappingFileError)
        validate_document(path, doc, validator, MappingFileError)
        scope = Scope(doc["scope"])
        if "unknown_fields" in doc:
            rule = UnknownFieldRule(doc["unknown_fields"])
            if unknown is not None and unknown[0] is not rule:
                raise MappingFileError(
                    str(path),
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
                    str(path),
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
            raise MappingFileError(str(path), f"{where}.{key}[{i}]", f"unknown {key[:-1]} {name!r}")
