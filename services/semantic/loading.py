"""Loading the semantic extractor's data files (the only place that touches the disk).

``catalog.json``, ``attributes.json`` and ``policy.json`` come from a catalog directory
(the demo data by default); ``admission_policy.json`` and ``semantic_lexicon.json`` are the
project's own contract files, loaded by ``services.adapters.contract_files`` against the
schemas in ``schemas_dir`` (``CACHECOH_SCHEMAS_DIR``). A bad file fails here, naming the
file and the JSON path of the problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.adapters import contract_files
from services.adapters.catalog_files import load_attributes, load_catalog
from services.adapters.contract_files import read_json as _read_contract_json
from services.core.errors import PolicyFileError as PolicyFileError  # re-exported
from services.core.semantic.admission import AdmissionPolicy
from services.core.semantic.extractor import SemanticExtractor
from services.paths import DEMO_DATA_DIR, SCHEMAS_DIR

ADMISSION_POLICY_FILE = DEMO_DATA_DIR / contract_files.ADMISSION_POLICY_FILE
LEXICON_FILE = DEMO_DATA_DIR / contract_files.LEXICON_FILE


@dataclass(frozen=True, slots=True)
class SemanticData:
    """Every parsed document the extractor is built from."""

    catalog: Mapping[str, Any]
    attributes: Mapping[str, Any]
    labelling_policy: Mapping[str, Any]
    admission: AdmissionPolicy
    lexicon: Mapping[str, Any]


def read_json(path: Path) -> Any:
    return _read_contract_json(path, PolicyFileError)


def load_admission_policy(
    path: Path = ADMISSION_POLICY_FILE, schemas_dir: Path = SCHEMAS_DIR
) -> AdmissionPolicy:
    return contract_files.load_admission_policy(path, schemas_dir)


def load_lexicon(path: Path = LEXICON_FILE, schemas_dir: Path = SCHEMAS_DIR) -> Mapping[str, Any]:
    return contract_files.load_lexicon(path, schemas_dir)


def load_semantic_data(
    catalog_dir: Path = DEMO_DATA_DIR,
    *,
    admission_policy: Path = ADMISSION_POLICY_FILE,
    lexicon: Path = LEXICON_FILE,
    schemas_dir: Path = SCHEMAS_DIR,
) -> SemanticData:
    return SemanticData(
        catalog=load_catalog(catalog_dir).document,
        attributes=load_attributes(catalog_dir).document,
        labelling_policy=read_json(catalog_dir / "policy.json"),
        admission=load_admission_policy(admission_policy, schemas_dir),
        lexicon=load_lexicon(lexicon, schemas_dir),
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


def load_semantic_extractor(
    catalog_dir: Path = DEMO_DATA_DIR,
    *,
    admission_policy: Path = ADMISSION_POLICY_FILE,
    lexicon: Path = LEXICON_FILE,
    schemas_dir: Path = SCHEMAS_DIR,
) -> SemanticExtractor:
    """The composition root the gateway calls once at start-up."""
    return build_extractor(
        load_semantic_data(
            catalog_dir, admission_policy=admission_policy, lexicon=lexicon, schemas_dir=schemas_dir
        )
    )
