"""Nearest-rank percentiles for the benchmarks and checks (one definition for all)."""

from __future__ import annotations

from collections.abc import Sequence


def nearest_rank(sorted_values: Sequence[float], q: float) -> float | None:
    """The value at rank ``q`` (0..1) of already sorted values; None when there are none."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))]
