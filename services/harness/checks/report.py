"""Figures shared by the checks' reports: percentiles, memory, and a plain-text rendering."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from services.percentiles import nearest_rank

MIB = 1024 * 1024


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (0 when there are none)."""
    found = nearest_rank(sorted_values, q)
    return 0.0 if found is None else found


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(percentile(ordered, 0.50) * 1000, 3),
        "p95_ms": round(percentile(ordered, 0.95) * 1000, 3),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3) if ordered else 0.0,
    }


def memory_mib(sizes: Mapping[str, int]) -> dict[str, float]:
    return {name: round(size / MIB, 1) for name, size in sizes.items()}


def render_text(figures: Mapping[str, Any], indent: int = 0) -> str:
    """A report as aligned ``key value`` lines; nested sections indented."""
    lines: list[str] = []
    pad = " " * indent
    for key, value in figures.items():
        if isinstance(value, Mapping) and value:
            lines.append(f"{pad}{key}:")
            lines.append(render_text(value, indent + 2))
        elif isinstance(value, list) and value and isinstance(value[0], Mapping):
            lines.append(f"{pad}{key}:")
            lines.extend(f"{pad}  - {json.dumps(item, ensure_ascii=False)}" for item in value)
        else:
            lines.append(f"{pad}{key:<34} {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)
