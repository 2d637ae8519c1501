"""`cachecoh bench semantic`: the extractor's cost per question over several sets."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from services.cli import app
from services.paths import DEMO_DATA_DIR


def _subset(tmp_path: Path, name: str, start: int, count: int) -> Path:
    lines = (DEMO_DATA_DIR / "queries_dev.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines[start : start + count]) + "\n", encoding="utf-8")
    return path


def test_bench_semantic_reports_each_set_by_id_never_by_text(tmp_path: Path) -> None:
    first, second = _subset(tmp_path, "first", 0, 30), _subset(tmp_path, "second", 30, 12)
    result = CliRunner().invoke(
        app,
        ["bench", "semantic", "--queries", str(first), "--queries", str(second), "--repeats", "1"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["sets"]) == {"first", "second"}
    assert report["sets"]["first"]["questions"] == 30
    assert report["sets"]["second"]["questions"] == 12
    ids = {json.loads(line)["id"] for line in first.read_text(encoding="utf-8").splitlines()}
    texts = [json.loads(line)["text"] for line in first.read_text(encoding="utf-8").splitlines()]
    slowest = report["sets"]["first"]["slowest"]
    assert len(slowest) == 10 and {row["id"] for row in slowest} <= ids
    assert [row["ms"] for row in slowest] == sorted((row["ms"] for row in slowest), reverse=True)
    assert report["sets"]["first"]["max"] >= report["sets"]["first"]["p99"] > 0
    assert report["worst_p99_ms"] == max(s["p99"] for s in report["sets"].values())
    assert report["sets_over_target"] == sorted(
        name for name, s in report["sets"].items() if s["p99"] > report["p99_target_ms"]
    )
    assert not any(text in result.stdout for text in texts)
    assert "per_char_cost_ratio_longest_vs_shortest" in report["length_scaling"]
