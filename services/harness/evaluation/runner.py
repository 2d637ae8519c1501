"""``cachecoh eval semantic``: build the extractor, score it, optionally the baselines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.harness.evaluation.semantic import (
    SHUFFLES,
    LabelledQuery,
    evaluate_extractor,
    length_scaling,
    meets_targets,
    read_queries,
    split_part,
)


@dataclass(frozen=True, slots=True)
class SemanticEvalRequest:
    queries: Path
    catalog_dir: Path
    seed: int = 0
    part: str = "all"
    baseline: str | None = None  # "embedding"
    plot: Path | None = None
    shuffles: int = SHUFFLES


def run_semantic_eval(
    request: SemanticEvalRequest,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    from services.semantic.loading import load_semantic_extractor

    queries: list[LabelledQuery] = split_part(read_queries(request.queries), request.part)
    extractor = load_semantic_extractor(request.catalog_dir)
    for query in queries[:20]:  # warm-up: first calls fill regex and jieba caches
        extractor.decide(query.text)

    def tick(done: int) -> None:
        if progress is not None:
            progress("extractor", done, len(queries))

    report: dict[str, Any] = {
        "queries_file": str(request.queries),
        "catalog_dir": str(request.catalog_dir),
        "part": request.part,
        "seed": request.seed,
        "shuffles": request.shuffles,
        **evaluate_extractor(queries, extractor.decide, request.seed, request.shuffles, tick),
    }
    rules_only = evaluate_extractor(
        queries,
        lambda text: extractor.decide(text, second_reader=False),
        request.seed,
        request.shuffles,
    )
    # What the second (n-gram) reader buys and costs: the same replay without it.
    report["without_second_reader"] = {
        k: rules_only[k]
        for k in (
            "hit_rate",
            "false_hit_rate",
            "bypass_leaks",
            "coverage",
            "false_hits",
            "per_question",
        )
    }
    report["length_scaling"] = length_scaling(extractor.decide)
    report["targets"] = meets_targets(report)
    baselines: list[dict[str, Any]] = []
    if request.baseline == "embedding":
        from services.harness.evaluation.baseline import compare_with_baseline, embedding_baseline

        for model in ("minilm", "char-ngram"):
            if progress is not None:
                progress(f"baseline {model}", 0, 1)
            result = embedding_baseline(queries, model, request.seed, request.shuffles)
            result["comparison"] = compare_with_baseline(report, result)
            baselines.append(result)
            if progress is not None:
                progress(f"baseline {model}", 1, 1)
        report["baselines"] = baselines
    if request.plot is not None:
        from services.harness.evaluation.plot import PlotExtraMissing, write_plot

        try:
            write_plot(request.plot, report, baselines)
            report["plot"] = str(request.plot)
        except PlotExtraMissing as exc:
            report["plot_error"] = str(exc)
    return report
