"""`cachecoh worker ...`: long-running processes of the coherence side."""

from __future__ import annotations

import typer

app = typer.Typer(help="Run a worker (coherence, outbox relay).", no_args_is_help=True)


@app.command("coherence")
def coherence() -> None:
    """Consume ProductSpecUpdated events and invalidate affected answers (faust worker)."""
    from services.coherence.bootstrap import build_worker
    from services.coherence.settings import CoherenceSettings

    build_worker(CoherenceSettings()).run()
