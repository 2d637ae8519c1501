"""`cachecoh db ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="db commands", no_args_is_help=True)
