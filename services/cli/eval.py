"""`cachecoh eval ...` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from services.cli.options import CatalogDirOption
from services.cli.progress import stage_progress

app = typer.Typer(help="Offline evaluations (semantic cache).", no_args_is_help=True)


@app.command("semantic")
def semantic(
    queries: Annotated[
        Path,
        typer.Option(
            "--queries",
            exists=True,
            dir_okay=False,
            help="Labelled queries (JSONL, queries_dev format).",
        ),
    ],
    catalog: CatalogDirOption = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the 5 shuffles.")] = 0,
    part: Annotated[
        str, typer.Option("--part", help="all | develop (70 % by id hash) | heldback (30 %).")
    ] = "all",
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline", help="'embedding': also score embedding-threshold caches at 0.70–0.98."
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", dir_okay=False, help="Write a hit-rate vs false-hit-rate PNG."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the full report as JSON on stdout.")
    ] = False,
) -> None:
    """Replay labelled questions against the semantic cache and score it."""
    from rich.console import Console
    from rich.table import Table

    from services.harness.evaluation.runner import SemanticEvalRequest, run_semantic_eval
    from services.paths import DEMO_DATA_DIR

    if baseline not in (None, "embedding"):
        raise typer.BadParameter("only 'embedding' is supported", param_hint="--baseline")
    request = SemanticEvalRequest(
        queries=queries,
        catalog_dir=catalog or DEMO_DATA_DIR,
        seed=seed,
        part=part,
        baseline=baseline,
        plot=plot,
    )
    with stage_progress() as advance:
        report = run_semantic_eval(request, advance)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    out = Console()
    table = Table(title=f"semantic cache — {queries.name} ({part})")
    for column in ("metric", "value", "target"):
        table.add_column(column)
    table.add_row("hit_rate", f"{report['hit_rate']:.4f}", "≥ 0.95")
    table.add_row("false_hit_rate", f"{report['false_hit_rate']:.6f}", "≤ 0.001")
    table.add_row("bypass_leaks", f"{report['bypass_leaks']:g}", "0")
    table.add_row("coverage", f"{report['coverage']:.4f}", "")
    each = report["per_question"]
    table.add_row(
        "per question, cacheable: right / none / wrong",
        f"{each['right']:.4f} / {each['none']:.4f} / {each['wrong']:.4f}",
        "wrong = 0",
    )
    table.add_row(
        "per question, bypass: leaked",
        f"{each['leaked']:.4f} ({each['leaked_count']} of {each['bypass_questions']})",
        "0",
    )
    table.add_row("latency p50 (ms)", f"{report['latency_ms'].get('p50', 0):.3f}", "≤ 0.3")
    table.add_row("latency p99 (ms)", f"{report['latency_ms'].get('p99', 0):.3f}", "≤ 2")
    without = report["without_second_reader"]
    table.add_row(
        "without 2nd reader: hit / false-hit / coverage",
        f"{without['hit_rate']:.4f} / {without['false_hit_rate']:.6f} / {without['coverage']:.4f}",
        "",
    )
    table.add_row(
        "without 2nd reader: right / none / wrong",
        f"{without['per_question']['right']:.4f} / {without['per_question']['none']:.4f}"
        f" / {without['per_question']['wrong']:.4f}",
        "",
    )
    scaling = report["length_scaling"]
    table.add_row(
        "worst ms at 1k/2k/4k/8k chars",
        " / ".join(f"{v:g}" for v in scaling["worst_ms_by_length"].values()),
        "linear",
    )
    out.print(table)
    for result in report.get("baselines", []):
        if not result.get("available"):
            out.print(f"baseline {result['model']}: unavailable ({result['reason']})")
            continue
        best = result["comparison"]
        out.print(
            f"baseline {result['model']}: beats at every threshold with false-hit rate ≤ ours: "
            f"{best['beats_baseline_at_all_of_them']}"
        )


@app.command("redaction")
def redaction(
    queries: Annotated[
        Path | None,
        typer.Option(
            "--queries", exists=True, dir_okay=False, help="Labelled queries (default: dev set)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the data and the shuffles.")] = 0,
    share: Annotated[
        float,
        typer.Option("--share", min=0.0, max=1.0, help="Share of questions given personal data."),
    ] = 0.5,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the full report as JSON on stdout.")
    ] = False,
) -> None:
    """Semantic hit rate with personal data redacted vs bypassed, and with vs without the
    answer-language key, on labelled questions with synthetic personal data inserted."""
    from rich.console import Console
    from rich.table import Table

    from services.gateway.bootstrap import load_redactor
    from services.harness.evaluation.redaction import run_redaction_eval
    from services.paths import DEMO_DATA_DIR
    from services.semantic.loading import load_semantic_extractor

    with stage_progress() as advance:
        extractor = load_semantic_extractor()
        report = run_redaction_eval(
            queries or DEMO_DATA_DIR / "queries_dev.jsonl",
            extractor.decide,
            load_redactor(),
            seed=seed,
            share=share,
            progress=advance,
        )
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    table = Table(title="semantic hit rate by key policy")
    for column in ("policy", "hit_rate", "false_hit_rate", "bypass_leaks"):
        table.add_column(column)
    for name, scores in report["policies"].items():
        table.add_row(
            name,
            f"{scores['hit_rate']:.4f}",
            f"{scores['false_hit_rate']:.6f}",
            f"{scores['bypass_leaks']:g}",
        )
    Console().print(table)


@app.command("generate")
def generate(
    out: Annotated[Path, typer.Option("--out", dir_okay=False, help="JSONL file to write.")],
    catalog: CatalogDirOption = None,
) -> None:
    """Write hard development questions generated from the catalog (queries_dev format)."""
    from services.harness.evaluation.generated import write_generated
    from services.paths import DEMO_DATA_DIR

    written = write_generated(
        catalog or DEMO_DATA_DIR, DEMO_DATA_DIR / "semantic_lexicon.json", out
    )
    typer.echo(json.dumps({"written": written, "out": str(out)}))
