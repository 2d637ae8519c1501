"""`cachecoh serve ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Run a service (gateway, engine, router).", no_args_is_help=True)
