"""`cachecoh check ...` commands."""

from __future__ import annotations

import json
from typing import Any

import typer

app = typer.Typer(
    help="Checks that prove the promises (consistency, faults, isolation, load).",
    no_args_is_help=True,
)


@app.command("consistency")
def consistency(
    duration: float = typer.Option(
        0.0, min=0, help="Stop after this many seconds (0 = run until stopped)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Probe answers after each acknowledged event and count stale ones (Polaris-style)."""
    import asyncio
    import logging
    import signal

    from services.consistency.runner import build_checker_run, serve_metrics
    from services.consistency.settings import ConsistencySettings

    settings = ConsistencySettings()
    logging.basicConfig(level=settings.log_level.upper())
    run = build_checker_run(settings)
    serve_metrics(run)

    async def main() -> dict[str, object]:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        report = await run.run(stop, duration_s=duration or None)
        return report.to_dict()

    result = asyncio.run(main())
    _emit(result, json_output=json_output, passed=not result["violations"])


@app.command("faults")
def faults(
    duration: float = typer.Option(
        600.0,
        min=10,
        help="Seconds of load under faults (longer until every planned fault ran and "
        "--min-reads reads were checked, by at most --max-overrun).",
    ),
    min_reads: int = typer.Option(0, min=0, help="Reads the run checks at least."),
    max_overrun: float = typer.Option(120.0, min=0, help="Seconds the run may last beyond."),
    kills: int | None = typer.Option(None, min=0, help="Worker SIGKILLs (default ~1 per 11 s)."),
    broker_stalls: int | None = typer.Option(None, min=0, help="Broker SIGSTOP/SIGCONTs."),
    redis_restarts: int | None = typer.Option(None, min=0, help="Restarts of the AOF Redis."),
    stale_restores: int | None = typer.Option(
        None, min=0, help="Redis restarts from a stale RDB snapshot (default ~1 per 15 s)."
    ),
    redis_flushes: int | None = typer.Option(
        None, min=0, help="Redis FLUSHALLs (default ~1 per 15 s)."
    ),
    update_rate: float = typer.Option(40.0, min=1, help="Spec updates per second."),
    read_rate: float = typer.Option(3000.0, min=1, help="Reads per second (all readers)."),
    seed: int = typer.Option(7, help="Workload and fault-schedule seed."),
    database_url: str | None = typer.Option(
        None, help="Audit database (default: a temp SQLite file)."
    ),
    keep_work_dir: bool = typer.Option(False, help="Keep logs and data of the run."),
    worker_setting: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        [], help="CACHECOH_NAME=VALUE for the worker (repeatable), e.g. its fetch wait."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Reads, fills and events under worker kills, broker stalls, Redis restarts, restores
    from stale snapshots and flushes, with events reusing ids across sources.

    Exits 1 when an event was lost or a read was stale.
    """
    from services.harness import require_harness_extra

    require_harness_extra()

    from services.harness.faults.load import LoadShape
    from services.harness.faults.rig import RigConfig
    from services.harness.faults.schedule import FaultPlan
    from services.harness.faults.suite import FaultSuiteConfig, default_plan, run_fault_suite
    from services.harness.faults.updates import UpdateShape

    planned = default_plan(duration)
    report = run_fault_suite(
        FaultSuiteConfig(
            duration_s=duration,
            min_reads=min_reads,
            max_overrun_s=max_overrun,
            plan=FaultPlan(
                worker_kills=planned.worker_kills if kills is None else kills,
                broker_stalls=planned.broker_stalls if broker_stalls is None else broker_stalls,
                redis_restarts=planned.redis_restarts if redis_restarts is None else redis_restarts,
                stale_restores=planned.stale_restores if stale_restores is None else stale_restores,
                redis_flushes=planned.redis_flushes if redis_flushes is None else redis_flushes,
            ),
            updates=UpdateShape(rate=update_rate),
            load=LoadShape(read_rate=read_rate),
            rig=RigConfig(database_url=database_url, keep_work_dir=keep_work_dir),
            seed=seed,
            worker_settings=_settings(worker_setting),
        )
    )
    _emit(report.to_dict(), json_output=json_output, passed=report.passed)


def _emit(figures: dict[str, Any], *, json_output: bool, passed: bool) -> None:
    """Print a check's figures (JSON, or one line each without the details); exit 1 on failure."""
    if json_output:
        typer.echo(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            if key != "details":
                typer.echo(f"{key:26} {value}")
    if not passed:
        raise typer.Exit(1)


def _emit_report(report: dict[str, Any], *, json_output: bool) -> None:
    """Print a check's report (JSON, or its rendered text); exit 1 unless it passed."""
    from services.harness.checks.report import render_text

    typer.echo(json.dumps(report, indent=2) if json_output else render_text(report))
    if not report["passed"]:
        raise typer.Exit(1)


def _settings(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.startswith("CACHECOH_"):
            raise typer.BadParameter(f"expected CACHECOH_NAME=VALUE, got {pair!r}")
        out[name] = value
    return out


@app.command("fuzz")
def fuzz(
    events: int = typer.Option(10_000, min=1, help="Malformed records (hypothesis-generated)."),
    valid: int = typer.Option(1_000, min=0, help="Valid events interleaved with them."),
    seed: int = typer.Option(7, help="Generation and interleaving seed."),
    include_known_bugs: bool = typer.Option(
        False, help="Also generate the KNOWN_BUG_* classes of faults/malformed_events (none now)."
    ),
    database_url: str | None = typer.Option(
        None, help="Audit database (default: a temp SQLite file)."
    ),
    settle_timeout: float = typer.Option(180.0, min=1, help="Seconds to wait for the worker."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Malformed events through the real broker and worker: 100 % DLQ, no restarts.

    Needs the harness extra (pip install 'cachecoh[harness]'). Exits 1 when a malformed
    record was not dead-lettered, a valid one was not applied, or the worker restarted.
    """
    from services.harness import require_harness_extra

    require_harness_extra()

    from services.harness.faults.fuzz import FuzzConfig, run_fuzz
    from services.harness.faults.rig import RigConfig

    report = run_fuzz(
        FuzzConfig(
            malformed=events,
            valid=valid,
            seed=seed,
            include_known_bugs=include_known_bugs,
            rig=RigConfig(redis_aof=False, database_url=database_url),
            settle_timeout_s=settle_timeout,
        )
    )
    _emit(report.to_dict(), json_output=json_output, passed=report.passed)


@app.command("isolation")
def isolation(
    requests: int = typer.Option(100_000, min=10, help="Requests in the mixed traffic."),
    tenants: int = typer.Option(3, min=2, max=26, help="Tenants asking the same questions."),
    concurrency: int = typer.Option(32, min=1, help="Concurrent client connections."),
    seed: int = typer.Option(7, help="Workload seed (questions, personal data, spoofing)."),
    keep_work_dir: bool = typer.Option(False, help="Keep logs, Redis files and the database."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Tenants, shared questions, personal data: 0 cross-tenant hits, 0 raw PII at rest.

    Also: the admin API refuses missing and wrong tokens. Needs the harness extra. Exits 1
    when any of these fails (docs/isolation-and-load.md).
    """
    from services.harness import require_harness_extra

    require_harness_extra()
    import string

    from services.harness.checks.isolation import (
        IsolationConfig,
        isolation_stack_config,
        run_isolation,
    )
    from services.harness.checks.tenant_traffic import TrafficShape

    names = tuple(f"tenant-{letter}" for letter in string.ascii_lowercase[:tenants])
    report = run_isolation(
        IsolationConfig(
            traffic=TrafficShape(requests=requests, seed=seed),
            concurrency=concurrency,
            stack=isolation_stack_config(tenants=names, keep_work_dir=keep_work_dir),
        )
    )
    _emit_report(report, json_output=json_output)


@app.command("load")
def load(
    seconds: float = typer.Option(30.0, min=1, help="Seconds per mix."),
    concurrency: int = typer.Option(32, min=1, help="Concurrent client connections."),
    bucket_capacity: int = typer.Option(10, min=1, help="Token bucket size per key."),
    bucket_refill: float = typer.Option(2.0, min=0.01, help="Tokens per second per key."),
    breaker_misses: int = typer.Option(120, min=1, help="Fill breaker: misses per minute."),
    seconds_per_token: float = typer.Option(0.002, min=0, help="Engine decode time per token."),
    keep_work_dir: bool = typer.Option(False, help="Keep the logs of the run."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Hit-heavy and miss-heavy mixes: throughput, latency, bucket bound, memory.

    Upstream calls per key are checked against the token bucket. Needs the harness extra.
    Exits 1 when a key's upstream calls exceeded the bucket or a
    status other than 200/429/503 was answered.
    """
    from services.harness import require_harness_extra

    require_harness_extra()

    from services.harness.checks.load import LoadConfig, run_load

    report = run_load(
        LoadConfig(
            seconds=seconds,
            concurrency=concurrency,
            bucket_capacity=bucket_capacity,
            bucket_refill_per_s=bucket_refill,
            breaker_misses_per_minute=breaker_misses,
            seconds_per_output_token=seconds_per_token,
            keep_work_dir=keep_work_dir,
        )
    )
    _emit_report(report, json_output=json_output)


@app.command("hostile")
def hostile(
    seconds: float = typer.Option(30.0, min=1, help="Seconds of the hostile mix."),
    clients: int = typer.Option(4, min=2, help="Hostile clients (half letter runs, half 10 MB)."),
    fuzz_requests: int = typer.Option(100_000, min=1, help="Fuzzed requests after the mix."),
    fuzz_concurrency: int = typer.Option(16, min=1, help="Concurrent fuzzing connections."),
    rss_budget_mib: float = typer.Option(1024.0, min=1, help="Peak RSS allowed per process."),
    seed: int = typer.Option(7, help="Fuzzer seed."),
    keep_work_dir: bool = typer.Option(False, help="Keep the logs of the run."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Hostile clients and fuzzed bodies against the real gateway and engine.

    Reports /health p50/p99 while clients send 8 KB letter runs and 10 MB bodies, the 5xx
    count over the fuzzed requests and peak RSS of gateway and engine. Needs the dev
    harness extra. Exits 1 when /health p99 exceeds 50 ms, any 5xx was answered, RSS exceeded
    the budget or the gateway logged a traceback (docs/isolation-and-load.md).
    """
    from services.harness import require_harness_extra

    require_harness_extra()
    from services.harness.checks.hostile import HostileConfig, run_hostile

    report = run_hostile(
        HostileConfig(
            seconds=seconds,
            clients=clients,
            fuzz_requests=fuzz_requests,
            fuzz_concurrency=fuzz_concurrency,
            rss_budget_mib=rss_budget_mib,
            seed=seed,
            keep_work_dir=keep_work_dir,
        )
    )
    _emit_report(report, json_output=json_output)
