"""``cachecoh bench semantic``: the extractor's cost per question over several sets.

The eval prints one set's latency beside its scores; this bench answers the speed target
alone ("p99 ≤ 2 ms per question on every set, linear in length") for many sets at once,
loading the extractor once, and names the slowest questions by id and length (never by
text: a report set's questions stay unread).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.harness.evaluation.semantic import (
    TIMING_REPEATS,
    latency_summary,
    length_scaling,
    read_queries,
    timed_decision,
)

#: First calls fill regex and jieba caches; they are not a question's cost.
_WARM_UP = 20
_SLOWEST = 10
#: The target of issue 15.
P99_TARGET_MS = 2.0


@dataclass(frozen=True, slots=True)
class SemanticBenchRequest:
    queries: Sequence[Path]
    catalog_dir: Path
    repeats: int = TIMING_REPEATS


def run_semantic_bench(
    request: SemanticBenchRequest,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Per set: p50 / p99 / mean / max (ms, each question its fastest of ``repeats`` runs)
    and the slowest questions; overall: the worst p99, the sets over target, load time and
    length scaling."""
    from services.semantic.loading import load_semantic_extractor

    started = time.perf_counter()
    extractor = load_semantic_extractor(request.catalog_dir)
    load_seconds = time.perf_counter() - started
    sets: dict[str, dict[str, Any]] = {}
    for path in request.queries:
        queries = read_queries(path)
        for query in queries[:_WARM_UP]:
            extractor.decide(query.text)
        timed: list[tuple[float, str, int]] = []
        for number, query in enumerate(queries, start=1):
            _, seconds = timed_decision(extractor.decide, query.text, request.repeats)
            timed.append((seconds, query.query_id, len(query.text)))
            if progress is not None:
                progress(path.name, number, len(queries))
        timed.sort(reverse=True)
        sets[path.stem] = {
            "questions": len(timed),
            **latency_summary([seconds for seconds, _, _ in timed]),
            "max": round(timed[0][0] * 1000, 4) if timed else 0.0,
            "slowest": [
                {"id": query_id, "ms": round(seconds * 1000, 3), "chars": chars}
                for seconds, query_id, chars in timed[:_SLOWEST]
            ],
        }
    worst = max((s["p99"] for s in sets.values() if s["questions"]), default=0.0)
    return {
        "repeats": request.repeats,
        "load_seconds": round(load_seconds, 3),
        "sets": sets,
        "worst_p99_ms": worst,
        "p99_target_ms": P99_TARGET_MS,
        "sets_over_target": sorted(
            name for name, s in sets.items() if s.get("p99", 0) > P99_TARGET_MS
        ),
        "length_scaling": length_scaling(extractor.decide),
    }
