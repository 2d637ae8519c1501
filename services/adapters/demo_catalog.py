"""The demo domain's products as the spec store is seeded with them: every catalog
product plus the store-wide policies as product ``store`` (one loader for every process)."""

from __future__ import annotations

import json
from pathlib import Path

from services.adapters.catalog_files import load_catalog
from services.core.catalog import ProductFacts, store_policy_facts


def load_demo_catalog(data_dir: Path) -> list[ProductFacts]:
    catalog = load_catalog(data_dir)
    policy = json.loads((data_dir / "policy.json").read_text(encoding="utf-8"))
    return [*catalog.products, store_policy_facts(policy.get("store_policies", {}))]
