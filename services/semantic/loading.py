"""Loading the semantic extractor's data files (the only place that touches the disk).

``catalog.json``, ``attributes.json`` and ``policy.json`` come from a catalog directory
(the demo data by default); ``admission_policy.json`` and ``semantic_lexicon.json`` are the
project's own files, each validated against its JSON Schema in ``schemas/`` at load. A bad
file fails here, naming the file and the JSON path of the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from services.adapters.catalog_files import load_attributes, load_catalog
from services.core.errors import json_path
from services.core.semantic.admission import AdmissionPolicy, PolicyError
from services.core.semantic.extractor import SemanticExtractor
from services.paths import DEMO_DATA_DIR, SCHEMAS_DIR

ADMISSION_POLICY_FILE = DEMO_DATA_DIR / "admission_policy.json"
LEXICON_FILE = DEMO_DATA_DIR / "semantic_lexicon.json"
ADMISSION_SCHEMA = SCHEMAS_DIR / "admission-policy.schema.json"
LEXICON_SCHEMA = SCHEMAS_DIR / "semantic-lexicon.schema.json"


class PolicyFileError(ValueError):
    """A data file that cannot be used: which file, where in it, and why."""

    def __init__(self, path: Path, json_path: str, message: str) -> None:
        super().__init__(f"{path.name}: {json_path}: {message}")
        self.path = path
        self.json_path = json_path
        self.message = message


@dataclass(frozen=True, slots=True)
class SemanticData:
    """Every parsed document the extractor is built from."""

    catalog: Mapping[str, Any]
    attributes: Mapping[str, Any]
    labelling_policy: Mapping[str, Any]
    admission: AdmissionPolicy
    lexicon: Mapping[str, Any]


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise PolicyFileError(path, "$", "file not found") from exc
    except json.JSONDecodeError as exc:
        raise PolicyFileError(path, "$", f"invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _validate(document: Any, path: Path, schema_path: Path) -> None:
    validator = Draft202012Validator(read_json(schema_path))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        first: ValidationError = errors[0]
        raise PolicyFileError(path, json_path(first.absolute_path), first.message)


def _check_regexes(document: Mapping[str, Any], path: Path) -> None:
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


_PATTERN_KEYS = frozenset({"patterns", "value_patterns", "hints", "re"})


def load_admission_policy(path: Path = ADMISSION_POLICY_FILE) -> AdmissionPolicy:
    document = read_json(path)
    _validate(document, path, ADMISSION_SCHEMA)
    _check_regexes(document, path)
    try:
        return AdmissionPolicy.from_mapping(document)
    except PolicyError as exc:
        raise PolicyFileError(path, exc.json_path, exc.message) from exc


def load_lexicon(path: Path = LEXICON_FILE) -> Mapping[str, Any]:
    document = read_json(path)
    _validate(document, path, LEXICON_SCHEMA)
    _check_regexes(document, path)
    if not isinstance(document, Mapping):  # pragma: no cover - the schema requires an object
        raise PolicyFileError(path, "$", "must be an object")
    return document


def load_semantic_data(
    catalog_dir: Path = DEMO_DATA_DIR,
    *,
    admission_policy: Path = ADMISSION_POLICY_FILE,
    lexicon: Path = LEXICON_FILE,
) -> SemanticData:
    return SemanticData(
        catalog=load_catalog(catalog_dir).document,
        attributes=load_attributes(catalog_dir).document,
        labelling_policy=read_json(catalog_dir / "policy.json"),
        admission=load_admission_policy(admission_policy),
        lexicon=load_lexicon(lexicon),
    )


def english_word_frequencies() -> Mapping[str, int]:
    """pyspellchecker's English frequency list: real words are never "corrected"."""
    from spellchecker import SpellChecker

    return dict(SpellChecker(language="en", distance=1).word_frequency.dictionary)


def build_extractor(data: SemanticData) -> SemanticExtractor:
    return SemanticExtractor(
        data.catalog,
        data.attributes,
        data.admission,
        lexicon=data.lexicon,
        store_policies=data.labelling_policy.get("store_policies", {}),
        english_words=english_word_frequencies(),
    )


def load_semantic_extractor(catalog_dir: Path = DEMO_DATA_DIR) -> SemanticExtractor:
    """The composition root the gateway calls once at start-up."""
    return build_extractor(load_semantic_data(catalog_dir))
