"""The package installs anywhere: build an sdist and a wheel from it, install the wheel into
a fresh virtualenv outside the checkout, and run ``cachecoh`` from another folder.

The fresh venv borrows the dependencies of the running interpreter's site-packages through
a plain ``.pth`` path entry (so nothing is downloaded). That entry is not a site directory:
the ``.pth`` files in it, among them the checkout's editable-install hook, are not run, so
``services`` can only come from the wheel. The test asserts that too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from services.paths import PROJECT_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

#: What the build needs from the checkout; nothing else is copied.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
BUILD_TREES = ("services", "schemas", "mappings")


def _run(
    args: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, (
        f"{' '.join(args)} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def _clean_env() -> dict[str, str]:
    """The environment without anything that points Python or cachecoh at the checkout."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CACHECOH_", "PYTHON", "VIRTUAL_ENV"))
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        shutil.copy2(PROJECT_ROOT / name, source / name)
    for name in BUILD_TREES:
        shutil.copytree(
            PROJECT_ROOT / name,
            source / name,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "contracts"),
        )
    dist = tmp_path_factory.mktemp("dist")
    # The PEP 517 backend itself (what `python -m build` calls), no isolation: offline.
    _run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])",
            str(dist),
        ],
        cwd=source,
    )
    (sdist,) = dist.glob("cachecoh-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(n.endswith("/schemas/product-spec-updated.schema.json") for n in names)
    assert any(n.endswith("/mappings/catalog-specs.json") for n in names)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(sdist),
        ],
        cwd=dist,
        env=_clean_env(),
    )
    (built,) = dist.glob("cachecoh-*.whl")
    return built


def test_wheel_carries_every_contract_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    for folder in ("schemas", "mappings"):
        for path in sorted((PROJECT_ROOT / folder).glob("*.json")):
            assert f"services/contracts/{folder}/{path.name}" in shipped, path
    assert "services/data/catalog.json" in shipped
    assert "services/adapters/sql/migrations/script.py.mako" in shipped


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; returns its ``bin`` directory."""
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv)
    python = venv / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            cwd=venv,
        ).stdout.strip()
    )
    (site / "borrowed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)],
        cwd=venv,
        env=_clean_env(),
    )
    return venv / "bin"


def test_the_package_comes_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    probe = (
        "import json, sys, services, services.paths as p; print(json.dumps({"
        "'services': services.__file__, 'path': sys.path,"
        "'schemas': str(p.SCHEMAS_DIR), 'mappings': str(p.MAPPINGS_DIR)}))"
    )
    out = json.loads(
        _run([str(installed / "python"), "-c", probe], cwd=tmp_path, env=_clean_env()).stdout
    )
    venv = installed.parent.resolve()
    assert Path(out["services"]).resolve().is_relative_to(venv)
    assert Path(out["schemas"]).resolve().is_relative_to(venv)
    assert Path(out["mappings"]).resolve().is_relative_to(venv)
    checkout = PROJECT_ROOT.resolve()
    assert not any(p and Path(p).resolve() == checkout for p in out["path"])


def test_installed_cli_loads_every_contract_file(installed: Path, tmp_path: Path) -> None:
    done = _run([str(installed / "cachecoh"), "contracts"], cwd=tmp_path, env=_clean_env())
    summary = json.loads(done.stdout)
    assert summary["mapped_fields"]["product"] > 0 and summary["mapped_fields"]["store"] > 0
    assert "personal" in summary["admission_intents"]
    assert Path(summary["schemas_dir"]).resolve().is_relative_to(installed.parent.resolve())


def test_installed_cli_honours_the_schemas_setting(installed: Path, tmp_path: Path) -> None:
    env = {**_clean_env(), "CACHECOH_SCHEMAS_DIR": str(tmp_path / "nowhere")}
    done = subprocess.run(
        [str(installed / "cachecoh"), "contracts"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'nowhere'}/product-spec-updated.schema.json: $: file not found" in (
        done.stderr
    )


def test_installed_demo_runs_from_another_folder(installed: Path, tmp_path: Path) -> None:
    done = _run(
        [str(installed / "cachecoh"), "demo", "--seconds", "10", "--json"],
        cwd=tmp_path,
        env=_clean_env(),
        timeout=600,
    )
    summary = json.loads(done.stdout)
    assert summary["errors"] == 0
    assert summary["invalidations_applied"] >= 1
    assert summary["answer_before"] != summary["answer_after"]
    assert summary["hits"]["request"] > 0 and summary["hits"]["semantic"] > 0
