"""`cachecoh publish ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="publish commands", no_args_is_help=True)
