"""The package's layers: production code never imports the development harnesses, and
the production services import without the harness extra."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import services
from services.harness import HARNESS_MODULES

ROOT = Path(services.__file__).resolve().parent
#: Allowed to reach into the harness: the harness itself, and the CLI's command bodies.
HARNESS_USERS = ("harness", "cli")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_production_code_never_imports_the_harness() -> None:
    offenders = []
    for path in ROOT.rglob("*.py"):
        top = path.relative_to(ROOT).parts[0]
        if top in HARNESS_USERS:
            continue
        bad = sorted(n for n in _imports(path) if n.startswith("services.harness"))
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert offenders == []


#: I/O client libraries: only adapters (and each process's composition root) use them.
IO_CLIENTS = ("redis", "httpx", "aiokafka", "kafka", "sqlalchemy", "faust", "psycopg", "zmq")
#: Composition roots and framework glue that wire the clients; the dashboard page's own
#: scraper of /metrics sits with the page.
WIRING = {"bootstrap.py", "app.py", "runner.py", "dashboard.py"}


def test_services_reach_io_only_through_adapters() -> None:
    offenders = []
    for service in ("gateway", "coherence", "consistency", "business"):
        for path in (ROOT / service).rglob("*.py"):
            if path.name in WIRING:
                continue
            bad = sorted(n for n in _imports(path) if n.split(".")[0] in IO_CLIENTS)
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert offenders == []


def test_production_modules_import_without_the_harness_extra() -> None:
    modules = [
        m.name
        for m in pkgutil.walk_packages([str(ROOT)], prefix="services.")
        if not m.name.startswith(("services.harness.", "services.cli"))
        and not m.name.endswith("__main__")
        and ".migrations" not in m.name  # Alembic's env scripts run only under alembic
    ]
    program = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {set(HARNESS_MODULES)!r}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import importlib\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "import services.harness.stack, services.harness.demo.scenario\n"
        "from services.harness import HarnessExtraMissing, require_harness_extra\n"
        "try:\n"
        "    require_harness_extra()\n"
        "except HarnessExtraMissing as exc:\n"
        "    assert 'cachecoh[harness]' in str(exc)\n"
        "else:\n"
        "    raise SystemExit('the harness extra looked installed while blocked')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT.parent, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(modules) > 100
