"""`cachecoh worker ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="worker commands", no_args_is_help=True)
