"""Development and CI harnesses, kept apart from the production services.

``stack`` (the embedded stack), ``demo``, ``evaluation`` and the coherence and prefix
benchmarks need only the base install, so ``cachecoh demo``, ``cachecoh dev up`` and those
benchmarks run wherever cachecoh does. ``checks``, ``faults`` and the gateway benchmark
import packages of the ``harness`` extra (hypothesis, schemathesis, psutil for the fault
suite, fuzzers, privacy scans and CPU figures); their commands call
:func:`require_harness_extra` first, so a production image without the extra answers with
one line instead of an ImportError. Nothing outside
this package (and the CLI's command bodies) imports it.
"""

from __future__ import annotations

import importlib.util

from services.core.errors import ExtraMissing

HARNESS_MODULES = ("hypothesis", "schemathesis", "psutil")


class HarnessExtraMissing(ExtraMissing):
    def __init__(self, missing: list[str]) -> None:
        super().__init__(
            f"{', '.join(missing)} not installed: this command is a development harness, "
            "pip install 'cachecoh[harness]'"
        )
        self.missing = missing


def require_harness_extra() -> None:
    """Raise :class:`HarnessExtraMissing` unless every harness-only package imports."""
    missing = [name for name in HARNESS_MODULES if not _importable(name)]
    if missing:
        raise HarnessExtraMissing(missing)


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken or blocked install counts as missing
        return False
