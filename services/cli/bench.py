"""`cachecoh bench ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmarks that print JSON.", no_args_is_help=True)
