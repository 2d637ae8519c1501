"""Build step: ship the top-level ``schemas/`` and ``mappings/`` inside the wheel.

They stay the source of truth at the top of the repository (the design card fixes that
layout); ``build_py`` copies them to ``services/contracts/`` in the build tree, so an
installed wheel finds them with ``importlib.resources`` (``services.paths``). Editable
installs skip the copy and read the checkout's folders directly. Everything else about
the package is declared in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: Top-level folder → where it lands inside the package (see services/paths.py).
SHIPPED_FOLDERS = ("schemas", "mappings")
PACKAGED_UNDER = Path("services") / "contracts"


class BuildPyWithContracts(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for folder in SHIPPED_FOLDERS:
            source = ROOT / folder
            files = sorted(source.glob("*.json"))
            if not files:
                raise SystemExit(f"build: {source} has no *.json files to ship")
            target = Path(self.build_lib) / PACKAGED_UNDER / folder
            if target.exists():
                shutil.rmtree(target)  # a file deleted upstream must not linger in the wheel
            target.mkdir(parents=True)
            for path in files:
                shutil.copy2(path, target / path.name)


setup(cmdclass={"build_py": BuildPyWithContracts})
