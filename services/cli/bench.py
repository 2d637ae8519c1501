"""`cachecoh bench ...` commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.cli.options import CatalogDirOption

app = typer.Typer(help="Benchmarks that print JSON.", no_args_is_help=True)


@app.command("prefix")
def prefix(
    replicas: Annotated[int, typer.Option(min=1, help="Engine replicas behind the router.")] = 4,
    requests: Annotated[int, typer.Option(min=1, help="Requests measured per policy.")] = 3000,
    warmup: Annotated[int, typer.Option(min=0, help="Requests replayed before measuring.")] = 1500,
    tenants: Annotated[
        int, typer.Option(min=1, help="Tenants (each has its own cache salt).")
    ] = 200,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 8,
    blocks_per_replica: Annotated[
        int | None,
        typer.Option(min=1, help="KV blocks per replica (default: static working set / replicas)."),
    ] = None,
    affinity_blocks: Annotated[
        int, typer.Option(min=1, help="Leading blocks in the routing key.")
    ] = 16,
    load_factor: Annotated[float, typer.Option(min=1.0, help="Bounded-load factor.")] = 1.25,
    seed: Annotated[int, typer.Option(help="Workload seed.")] = 7,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Prefix hit rate per routing policy vs one replica, and load imbalance."""
    from services.harness.benchmarks.prefix import PrefixBenchConfig, render_text, run_prefix_bench

    report = run_prefix_bench(
        PrefixBenchConfig(
            replicas=replicas,
            requests=requests,
            warmup_requests=warmup,
            tenants=tenants,
            concurrency=concurrency,
            blocks_per_replica=blocks_per_replica,
            affinity_blocks=affinity_blocks,
            load_factor=load_factor,
            seed=seed,
        )
    )
    typer.echo(report.to_json() if json_output else render_text(report))


@app.command("coherence")
def coherence(
    entries: int = typer.Option(100_000, min=1, help="Answers cached before the run."),
    events: int = typer.Option(5_000, min=1, help="Events published."),
    rate: float = typer.Option(1_000.0, min=1, help="Events per second."),
    seed: int = typer.Option(7, help="Workload seed."),
    redis_url: str | None = typer.Option(None, help="Use this Redis instead of a private one."),
    rounds: int = typer.Option(1, min=1, help="Alternations of worker and floor phases."),
    fetch_max_wait_ms: int = typer.Option(
        5, min=1, help="Fetch wait of the worker and of the floor consumer."
    ),
    baseline: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            file_okay=False,
            help="A checkout (e.g. a git worktree of an older commit) whose worker runs as a "
            "'baseline' phase before each worker phase.",
        ),
    ] = None,
    kafka_bootstrap: str | None = typer.Option(
        None, help="Use this Kafka (e.g. kafka:9092 in compose) instead of an embedded broker."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Invalidation lag through the real broker and worker vs the broker's floor (a bare
    aiokafka consumer, one INCR per record), alternating; tag bump vs SCAN purge."""
    import json

    from services.harness.benchmarks.coherence import CoherenceBenchConfig, run_coherence_bench

    report = run_coherence_bench(
        CoherenceBenchConfig(
            entries=entries,
            events=events,
            rate=rate,
            seed=seed,
            redis_url=redis_url,
            rounds=rounds,
            fetch_max_wait_ms=fetch_max_wait_ms,
            baseline_tree=baseline,
            kafka_bootstrap=kafka_bootstrap,
        )
    )
    if json_output:
        typer.echo(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            typer.echo(f"{key:32} {value}")


@app.command("gateway")
def gateway(
    concurrency: int = typer.Option(32, min=1, help="Concurrent clients of the hit phases."),
    hit_requests: int = typer.Option(20_000, min=100, help="Requests per concurrent hit phase."),
    single_client_requests: int = typer.Option(
        3_000, min=100, help="Requests per single-client hit phase."
    ),
    miss_requests: int = typer.Option(300, min=10, help="Requests of the miss-path phase."),
    redis_url: str = typer.Option(
        "redis://127.0.0.1:6379/0", help="Redis to use (a private key prefix, removed after)."
    ),
    workers: int = typer.Option(1, min=1, help="Gateway processes sharing the port."),
    gateway_src: Annotated[
        Path | None,
        typer.Option(help="Measure the gateway of another checkout (a before/after run)."),
    ] = None,
    profile_dir: Annotated[
        Path | None,
        typer.Option(help="Write py-spy flame graphs of the concurrent hit phases here."),
    ] = None,
    wrk_seconds: int = typer.Option(
        0, min=0, help="Cross-check request-layer hits with wrk for this many seconds."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Gateway hit-path throughput and latency (request and semantic layers), miss overhead."""
    from services.harness import require_harness_extra

    require_harness_extra()  # CPU per hit is read through psutil
    from services.harness.benchmarks.gateway import (
        GatewayBenchConfig,
        render_text,
        run_gateway_bench,
    )

    report = run_gateway_bench(
        GatewayBenchConfig(
            concurrency=concurrency,
            hit_requests=hit_requests,
            single_client_requests=single_client_requests,
            miss_requests=miss_requests,
            redis_url=redis_url,
            workers=workers,
            gateway_src=gateway_src,
            profile_dir=profile_dir,
            wrk_seconds=wrk_seconds,
        )
    )
    typer.echo(report.to_json() if json_output else render_text(report))


@app.command("semantic")
def semantic(
    queries: Annotated[
        list[Path],
        typer.Option(
            "--queries",
            exists=True,
            dir_okay=False,
            help="Labelled queries (JSONL); repeat the option for several sets.",
        ),
    ],
    catalog: CatalogDirOption = None,
    repeats: Annotated[int, typer.Option(min=1, help="Runs per question; the fastest counts.")] = 3,
) -> None:
    """Extractor latency per question over one or more sets (JSON on stdout)."""
    import json

    from services.cli.progress import stage_progress
    from services.harness.benchmarks.semantic import SemanticBenchRequest, run_semantic_bench
    from services.paths import DEMO_DATA_DIR

    request = SemanticBenchRequest(
        queries=tuple(queries), catalog_dir=catalog or DEMO_DATA_DIR, repeats=repeats
    )
    with stage_progress() as advance:
        report = run_semantic_bench(request, advance)
    typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
