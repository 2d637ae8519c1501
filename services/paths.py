"""Where the project's shipped files live (schemas, mappings, demo data).

Installed editable from a checkout, the top-level ``schemas/`` and ``mappings/`` folders sit
beside the package; settings may point elsewhere.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
SCHEMAS_DIR = PROJECT_ROOT / "schemas"
MAPPINGS_DIR = PROJECT_ROOT / "mappings"
DEMO_DATA_DIR = PACKAGE_DIR / "data"
