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
        "per_question",
    ):
        assert key in report
    assert report["latency_ms"]["p50"] > 0
    each = report["per_question"]
    assert each["right"] + each["none"] + each["wrong"] == pytest.approx(1.0, abs=1e-5)
    assert "per_question" in report["without_second_reader"]


def test_eval_generate_writes_labelled_questions(tmp_path: Path) -> None:
    out = tmp_path / "generated.jsonl"
    result = CliRunner().invoke(app, ["eval", "generate", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)["written"]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written == len(rows) > 1000
    assert all(r["cacheable"] == (r["cid"] is not None) for r in rows)
