"""Hit rate vs false-hit rate: our fingerprint cache against embedding-threshold caches."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.core.errors import ExtraMissing


class PlotExtraMissing(ExtraMissing):
    def __init__(self) -> None:
        super().__init__("matplotlib is not installed: pip install 'cachecoh[eval]'")


def write_plot(path: Path, ours: Mapping[str, Any], baselines: Sequence[Mapping[str, Any]]) -> None:
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotExtraMissing()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 5), dpi=120)
    for baseline in baselines:
        if not baseline.get("available"):
            continue
        points = baseline["points"]
        xs = [p["false_hit_rate"] for p in points]
        ys = [p["hit_rate"] for p in points]
        axes.plot(xs, ys, marker="o", label=f"embedding threshold ({baseline['model']})")
        for point in points[:: max(1, len(points) // 5)]:
            axes.annotate(
                f"{point['threshold']:.2f}",
                (point["false_hit_rate"], point["hit_rate"]),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
            )
    axes.scatter(
        [ours["false_hit_rate"]],
        [ours["hit_rate"]],
        marker="*",
        s=220,
        color="crimson",
        zorder=5,
        label="cachecoh fingerprints",
    )
    axes.set_xscale("symlog", linthresh=1e-3)
    axes.set_xlabel("false-hit rate (hits serving another class / all queries)")
    axes.set_ylabel("hit rate (correct hits / queries seen before)")
    axes.set_ylim(0, 1.02)
    axes.set_title("Semantic cache: fingerprints vs embedding thresholds")
    axes.grid(True, alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
