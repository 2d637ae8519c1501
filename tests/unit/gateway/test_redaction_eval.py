"""``cachecoh eval redaction``: redacted personal data keeps its hits, bypassing loses them,
and the language key splits zh and en askers (a fake extractor, the real redactor)."""

from __future__ import annotations

import json
from pathlib import Path

from services.core.semantic.fingerprint import Fingerprint, NoFingerprint, SemanticDecision
from services.gateway.bootstrap import load_redactor
from services.harness.evaluation.redaction import run_redaction_eval

WEIGHT = Fingerprint("iphone_15", "weight", "query_spec", ())


def decide(text: str) -> SemanticDecision:
    lowered = text.lower()
    return WEIGHT if "iphone 15" in lowered or "苹果15" in lowered else NoFingerprint("x")


def test_redaction_keeps_the_hits_that_bypassing_loses(tmp_path: Path) -> None:
    rows = [
        {
            "id": f"q{i}",
            "text": text,
            "lang": lang,
            "intent": "query_spec",
            "cacheable": True,
            "cid": WEIGHT.cid,
        }
        for i, (text, lang) in enumerate(
            [
                ("iPhone 15 weight?", "en"),
                ("how heavy is the iPhone 15", "en"),
                ("iPhone 15 how many grams", "en"),
                ("苹果15多重", "zh"),
                ("苹果15有多重", "zh"),
            ]
        )
    ]
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    report = run_redaction_eval(path, decide, load_redactor(), seed=1, share=1.0)
    hit_rate = report["hit_rate"]
    assert report["with_personal_data"] == 5 and report["redactor_recall"] > 0.5
    assert hit_rate["personal_bypassed"] < hit_rate["personal_redacted"]
    assert hit_rate["personal_redacted"] == hit_rate["clean"]
    # 5 questions of one class: 4 could hit without the language key, 3 with it
    assert hit_rate["clean_without_language"] == 1.0
    assert hit_rate["clean"] == 0.75
    assert report["language_key_cost"] == 0.25
