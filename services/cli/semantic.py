"""`cachecoh semantic ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Semantic-cache operations.", no_args_is_help=True)
