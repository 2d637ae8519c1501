"""Consistency verdicts (pure): is a served answer older than an acknowledged event?

Every cached body starts with a JSON object (its first line, or the whole body) that
records ``spec_versions``: the spec version of each product the answer was built from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass


def spec_versions_of(body: bytes) -> Mapping[str, int] | None:
    """The ``spec_versions`` a body records, or None if it records none."""
    first = body.split(b"\n", 1)[0]
    try:
        meta = json.loads(first)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    versions = meta.get("spec_versions") if isinstance(meta, dict) else None
    if not isinstance(versions, dict):
        return None
    return {str(k): int(v) for k, v in versions.items() if isinstance(v, int)}


def is_violation(body: bytes, product: str, acknowledged_version: int) -> bool:
    """A served answer about ``product`` built from a version older than one acknowledged.

    An answer that records no version for the product cannot prove it is fresh, so it
    counts as a violation.
    """
    versions = spec_versions_of(body)
    if versions is None or product not in versions:
        return True
    return versions[product] < acknowledged_version


@dataclass(frozen=True, slots=True)
class ConsistencyReport:
    checked_reads: int
    violations: int
    events_checked: int

    @property
    def nines(self) -> float:
        """−log10(violations / checked); with none, the bound the sample size supports."""
        if self.checked_reads == 0:
            return 0.0
        ratio = max(self.violations, 1) / self.checked_reads
        return round(-math.log10(ratio), 2)

    @property
    def nines_is_lower_bound(self) -> bool:
        return self.violations == 0

    def to_dict(self) -> dict[str, object]:
        return {
            "checked_reads": self.checked_reads,
            "violations": self.violations,
            "events_checked": self.events_checked,
            "nines": self.nines,
            "nines_is_lower_bound": self.nines_is_lower_bound,
        }
