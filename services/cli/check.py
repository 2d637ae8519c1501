"""`cachecoh check ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Checks that prove the promises (consistency, faults).", no_args_is_help=True
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
    import json
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
    if json_output:
        typer.echo(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            typer.echo(f"{key:24} {value}")
    if result["violations"]:
        raise typer.Exit(1)
