"""`cachecoh catalog ...` commands (bring your own catalog)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Check a catalog directory before using it.", no_args_is_help=True)


@app.command("check")
def check(
    directory: Annotated[
        Path,
        typer.Argument(
            exists=True, file_okay=False, help="Directory with catalog.json and attributes.json."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Validate the files and list products that can never get a fingerprint."""
    from services.adapters.catalog_files import load_attributes, load_catalog
    from services.core.errors import ContractError
    from services.core.semantic.coverage import probe_problems, static_problems
    from services.semantic.loading import PolicyFileError, load_semantic_extractor

    try:
        catalog = load_catalog(directory)
        attributes = load_attributes(directory)
        extractor = load_semantic_extractor(directory)
    except (ContractError, PolicyFileError) as exc:
        typer.echo(f"invalid: {exc}", err=True)
        raise typer.Exit(2) from exc
    problems = static_problems(catalog, attributes)
    probed, shares = probe_problems(catalog, attributes, extractor.decide)
    problems += probed
    report = {
        "directory": str(directory),
        "products": len(catalog.products),
        "attributes": len(attributes.attributes),
        "problems": [
            {"where": p.where, "product": p.product, "problem": p.problem} for p in problems
        ],
        "probe_hit_share": shares,
    }
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        typer.echo(f"{len(catalog.products)} products, {len(attributes.attributes)} attributes")
        for p in problems:
            typer.echo(f"{p.where}: {p.product or '-'}: {p.problem}")
        typer.echo(f"{len(problems)} problem(s)")
    if problems:
        raise typer.Exit(1)
