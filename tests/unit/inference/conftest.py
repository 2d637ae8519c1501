from __future__ import annotations

import json

import pytest

from services.core.catalog import ProductFacts, catalog_from_dict
from services.core.prompt import SopCatalog, sop_catalog_from_dict
from services.inference.tokenization import OfflineTokenizer
from services.paths import DEMO_DATA_DIR


@pytest.fixture(scope="session")
def sop() -> SopCatalog:
    return sop_catalog_from_dict(
        json.loads((DEMO_DATA_DIR / "sop_templates.json").read_text("utf-8"))
    )


@pytest.fixture(scope="session")
def products() -> dict[str, ProductFacts]:
    raw = json.loads((DEMO_DATA_DIR / "catalog.json").read_text("utf-8"))
    return {p.product_id: p for p in catalog_from_dict(raw)}


@pytest.fixture(scope="session")
def tokenizer() -> OfflineTokenizer:
    return OfflineTokenizer.from_file()
