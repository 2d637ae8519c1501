"""Where the project's shipped files live: the defaults of ``CACHECOH_SCHEMAS_DIR``,
``CACHECOH_MAPPINGS_DIR`` and ``CACHECOH_DATA_DIR``.

Each process passes its settings' directories (``CommonSettings.schemas_dir`` /
``mappings_dir`` / ``data_dir``) to the loaders; these constants are those settings'
defaults (and what the dev harnesses and tests read).

- Installed from a wheel: ``schemas/`` and ``mappings/`` are copied into the package at
  build time (``setup.py``) under ``services/contracts/``; found with ``importlib.resources``.
- In a checkout (editable install, tests): the top-level ``schemas/`` and ``mappings/``
  folders beside the package, the source of truth.
- ``services/data/`` (demo catalog, policies, prices) is package data in both cases.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

PACKAGE_DIR = Path(__file__).resolve().parent
#: The checkout's root; in an installed package this is site-packages (no schemas there).
PROJECT_ROOT = PACKAGE_DIR.parent
#: Where the build step puts the contract folders inside the package.
PACKAGED_CONTRACTS = "contracts"

ShippedFolder = Literal["schemas", "mappings"]


def shipped_dir(folder: ShippedFolder) -> Path:
    """The packaged copy of ``folder`` if this is an installed wheel, else the checkout's."""
    packaged = resources.files("services").joinpath(PACKAGED_CONTRACTS, folder)
    # pip installs unpacked, so the resource is a real directory (never inside a zip).
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    return PROJECT_ROOT / folder


SCHEMAS_DIR = shipped_dir("schemas")
MAPPINGS_DIR = shipped_dir("mappings")
DEMO_DATA_DIR = PACKAGE_DIR / "data"
