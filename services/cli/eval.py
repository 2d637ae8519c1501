"""`cachecoh eval ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Offline evaluations (semantic cache).", no_args_is_help=True)
