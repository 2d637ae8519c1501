"""The one loader of ``catalog.json`` and ``attributes.json`` (bring your own catalog).

Both files are validated against their JSON Schemas (``schemas/catalog.schema.json``,
``schemas/attributes.schema.json``) when loaded; a bad file fails here with
:class:`CatalogFileError` naming the file and the JSON path of the first problem. Every
process that needs products or the attribute vocabulary goes through these functions and
gets frozen objects (:class:`~services.core.catalog.Catalog`,
:class:`~services.core.catalog.AttributeVocabulary`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

from services.adapters.contract_files import load_schema, read_json, validate_document
from services.core.catalog import AttributeVocabulary, Catalog
from services.core.errors import ContractError

CATALOG_FILE = "catalog.json"
ATTRIBUTES_FILE = "attributes.json"
CATALOG_SCHEMA = "catalog.schema.json"
ATTRIBUTES_SCHEMA = "attributes.schema.json"


class CatalogFileError(ContractError):
    """``catalog.json`` or ``attributes.json`` is missing or invalid (file, JSON path)."""


@cache
def _validator(schema: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(schema))


def _document(path: Path, schema: str) -> object:
    document = read_json(path, CatalogFileError)
    validate_document(path, document, _validator(schema), CatalogFileError)
    return document


def load_catalog(catalog_dir: Path) -> Catalog:
    """``catalog_dir/catalog.json``, validated and frozen."""
    path = catalog_dir / CATALOG_FILE
    document = _document(path, CATALOG_SCHEMA)
    assert isinstance(document, dict)  # the schema requires an object
    return Catalog.from_document(document)


def load_attributes(catalog_dir: Path) -> AttributeVocabulary:
    """``catalog_dir/attributes.json``, validated and frozen."""
    path = catalog_dir / ATTRIBUTES_FILE
    document = _document(path, ATTRIBUTES_SCHEMA)
    assert isinstance(document, dict)  # the schema requires an object
    return AttributeVocabulary.from_document(document)
