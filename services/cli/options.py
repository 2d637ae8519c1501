"""Command-line options several commands share, as ``Annotated`` aliases."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

#: The catalog a semantic command reads (``None``: the demo data).
CatalogDirOption = Annotated[
    Path | None,
    typer.Option(
        "--catalog",
        file_okay=False,
        help="Directory with catalog.json, attributes.json, policy.json (default: demo data).",
    ),
]
