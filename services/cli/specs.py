"""`cachecoh specs ...`: the demo business system's spec store."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

app = typer.Typer(help="Read and change product specs (writes the outbox).", no_args_is_help=True)


@app.command("show")
def show(product: str) -> None:
    """Print a product's current spec as JSON."""
    from services.adapters.sql.engine import make_engine
    from services.adapters.sql.spec_store import SpecStore
    from services.business.settings import BusinessSettings

    settings = BusinessSettings()
    store = SpecStore(make_engine(settings.database_url.get_secret_value()), topic=settings.topic)
    facts = store.get(product)
    if facts is None:
        typer.echo(f"error: unknown product {product!r}", err=True)
        sys.exit(2)
    typer.echo(json.dumps(facts.to_dict(), ensure_ascii=False, indent=2))


@app.command("update")
def update(
    product: Annotated[str, typer.Option("--product")],
    assignments: Annotated[
        list[str],
        typer.Option(
            "--set", help='PATH=JSON, e.g. battery_life.video_playback={"value":22,"unit":"h"}'
        ),
    ],
    tenant: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Change spec fields in one transaction; the event goes to the outbox."""
    from services.adapters.sql.engine import make_engine
    from services.adapters.sql.spec_store import SpecStore, UnknownProduct
    from services.business.settings import BusinessSettings
    from services.core.catalog import SpecChangeError

    changes = {}
    for assignment in assignments:
        path, sep, raw = assignment.partition("=")
        if not sep:
            typer.echo(f"error: --set {assignment!r} is not PATH=JSON", err=True)
            sys.exit(2)
        try:
            changes[path] = json.loads(raw)
        except json.JSONDecodeError as exc:
            typer.echo(f"error: --set {path}: invalid JSON ({exc.msg})", err=True)
            sys.exit(2)
    settings = BusinessSettings()
    store = SpecStore(make_engine(settings.database_url.get_secret_value()), topic=settings.topic)
    try:
        event = store.update(product, changes, tenant=tenant)
    except (UnknownProduct, SpecChangeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if event is None:
        typer.echo("nothing changed")
        return
    typer.echo(f"{product} now at spec_version {event.spec_version}; event {event.event_id} queued")
