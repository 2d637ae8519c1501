from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint, NoFingerprint, SemanticDecision
from services.harness.evaluation.baseline import NearestNeighbourCache, compare_with_baseline
from services.harness.evaluation.semantic import (
    KeyedCache,
    LabelledQuery,
    evaluate_extractor,
    read_queries,
    score_cache,
    split_part,
)
from services.paths import DEMO_DATA_DIR

DEV = DEMO_DATA_DIR / "queries_dev.jsonl"


def _q(query_id: str, cid: str | None, intent: str = "query_spec") -> LabelledQuery:
    return LabelledQuery(query_id, query_id, "en", intent, cid is not None, cid)


def test_replay_counts_hits_false_hits_and_leaks() -> None:
    queries = [_q("a1", "A"), _q("a2", "A"), _q("b1", "B"), _q("x", None, "compare")]
    # a1/a2 share a key (correct hit), b1 collides with them (false hit), x leaks.
    keys: list[str | None] = ["k", "k", "k", "k"]
    scores = score_cache(queries, KeyedCache(keys), seed=1, shuffles=5)
    assert scores["bypass_leaks"] == 1
    assert scores["false_hits"] > 0
    assert scores["coverage"] == 1.0


def test_a_perfect_keying_scores_perfectly() -> None:
    queries = [_q("a1", "A"), _q("a2", "A"), _q("b1", "B"), _q("b2", "B"), _q("x", None, "predict")]
    keys = ["A", "A", "B", "B", None]
    scores = score_cache(queries, KeyedCache(keys), seed=3)
    assert scores == {**scores, "hit_rate": 1.0, "false_hit_rate": 0.0, "bypass_leaks": 0.0}


def test_nearest_neighbour_cache_serves_above_threshold() -> None:
    import numpy as np  # the eval/vector extras; `make test` installs them

    similarity = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.1], [0.1, 0.1, 1.0]], dtype=np.float32)
    queries = [_q("a1", "A"), _q("a2", "A"), _q("b1", "B")]
    high = score_cache(queries, NearestNeighbourCache(similarity, 0.95), seed=0)
    low = score_cache(queries, NearestNeighbourCache(similarity, 0.05), seed=0)
    assert high["hit_rate"] == 0.0 and high["false_hit_rate"] == 0.0
    assert low["false_hit_rate"] > 0.0


def test_comparison_with_baseline() -> None:
    ours = {"hit_rate": 0.97, "false_hit_rate": 0.0}
    baseline = {
        "available": True,
        "points": [
            {"threshold": 0.8, "hit_rate": 0.5, "false_hit_rate": 0.1},
            {"threshold": 0.98, "hit_rate": 0.0, "false_hit_rate": 0.0},
        ],
    }
    result = compare_with_baseline(ours, baseline)
    assert result["thresholds_at_or_below_our_false_hit_rate"] == [0.98]
    assert result["beats_baseline_at_all_of_them"] is True
    assert compare_with_baseline(ours, {"available": False}) == {"comparable": False}


def test_read_queries_accepts_any_ids(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "zz-9",
            "text": "t",
            "lang": "en",
            "intent": "predict",
            "cacheable": False,
            "cid": None,
        },
        {
            "id": "q1",
            "text": "u",
            "lang": "zh",
            "intent": "query_spec",
            "cacheable": True,
            "cid": "p|a|",
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    queries = read_queries(path)
    assert [q.query_id for q in queries] == ["zz-9", "q1"]
    assert len(split_part(queries, "develop")) + len(split_part(queries, "heldback")) == 2


def test_worst_errors_show_texts() -> None:
    queries = [_q("a1", "A"), _q("b1", "B")]

    def decide(text: str) -> SemanticDecision:
        return Fingerprint("p", "price", "query_spec", ()) if text else NoFingerprint("empty")

    report = evaluate_extractor(queries, decide, seed=0)
    assert report["false_hit_rate"] > 0
    assert report["worst_errors"][0]["kind"] == "false_hit"
    assert report["worst_errors"][0]["text"] in {"a1", "b1"}


@pytest.mark.slow
@pytest.mark.parametrize("part", ["develop", "heldback"])
def test_dev_set_meets_the_targets(extractor: SemanticExtractor, part: str) -> None:
    queries = split_part(read_queries(DEV), part)
    report = evaluate_extractor(queries, extractor.decide, seed=0)
    assert report["hit_rate"] >= 0.95, report["worst_errors"]
    assert report["false_hit_rate"] <= 0.001, report["worst_errors"]
    assert report["bypass_leaks"] == 0, report["worst_errors"]
    assert set(report["by_lang"]) == {"en", "zh", "mixed"}
    assert "compare" in report["by_intent"]


@pytest.mark.slow
def test_beats_the_char_ngram_baseline(extractor: SemanticExtractor) -> None:
    from services.harness.evaluation.baseline import embedding_baseline

    queries = read_queries(DEV)
    ours = evaluate_extractor(queries, extractor.decide, seed=0)
    baseline = embedding_baseline(queries, "char-ngram", seed=0, thresholds=(0.8, 0.9, 0.98))
    comparison = compare_with_baseline(ours, baseline)
    assert comparison["comparable"] and comparison["beats_baseline_at_all_of_them"]


def test_per_question_scores_each_decision_on_its_own() -> None:
    from services.core.semantic.fingerprint import Bypass
    from services.harness.evaluation.semantic import per_question

    queries = [
        LabelledQuery("r", "r", "en", "query_spec", True, "iphone_15|price|"),
        LabelledQuery("w", "w", "en", "query_spec", True, "iphone_15|weight|"),
        LabelledQuery("n", "n", "en", "query_spec", True, "iphone_15|price|"),
        LabelledQuery("b", "b", "en", "query_spec", True, "iphone_15|price|"),
        LabelledQuery("l", "l", "en", "personal", False, None),
    ]
    price = Fingerprint(product="iphone_15", attribute="price", intent="query_spec", constraints=())
    decisions: list[SemanticDecision] = [
        price,
        price,  # wrong: plants a price answer for a weight question
        NoFingerprint("no attribute found"),
        Bypass("predict", "future"),
        price,  # a leak
    ]
    scores = per_question(queries, decisions)
    assert scores["cacheable"] == 4
    assert scores["right"] == 0.25
    assert scores["wrong"] == 0.25 and scores["wrong_count"] == 1
    assert scores["none"] == 0.5 and scores["none_bypassed"] == 0.25
    assert scores["bypass_questions"] == 1 and scores["leaked_count"] == 1
