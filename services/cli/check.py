"""`cachecoh check ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Checks that prove the promises (consistency, faults).", no_args_is_help=True)
