from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.paths import DEMO_DATA_DIR


@pytest.mark.slow
def test_eval_semantic_json_is_pure_json(tmp_path: Path) -> None:
    lines = (DEMO_DATA_DIR / "queries_dev.jsonl").read_text(encoding="utf-8").splitlines()[:120]
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["eval", "semantic", "--queries", str(queries), "--seed", "7", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["seed"] == 7 and report["shuffles"] == 5
    for key in (
        "hit_rate",
        "false_hit_rate",
        "bypass_leaks",
        "coverage",
        "by_intent",
        "by_lang",
        "worst_errors",
    ):
        assert key in report
    assert report["latency_ms"]["p50"] > 0
