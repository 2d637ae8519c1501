"""`cachecoh db ...`: migrations and the demo catalog."""

from __future__ import annotations

import typer

app = typer.Typer(help="Database migrations and seeding.", no_args_is_help=True)


@app.command("upgrade")
def upgrade(revision: str = typer.Argument("head")) -> None:
    """Apply Alembic migrations (idempotent)."""
    from services.adapters.sql.engine import current_revision
    from services.adapters.sql.engine import upgrade as run_upgrade
    from services.settings import CommonSettings

    url = CommonSettings().database_url.get_secret_value()
    run_upgrade(url, revision)
    typer.echo(f"database at revision {current_revision(url)}")


@app.command("seed")
def seed() -> None:
    """Load the demo catalog into the spec store (products already there are kept)."""
    import json

    from services.adapters.sql.engine import make_engine
    from services.adapters.sql.engine import upgrade as run_upgrade
    from services.adapters.sql.spec_store import SpecStore
    from services.core.catalog import catalog_from_dict
    from services.settings import CommonSettings

    settings = CommonSettings()
    url = settings.database_url.get_secret_value()
    run_upgrade(url)
    catalog = json.loads((settings.data_dir / "catalog.json").read_text(encoding="utf-8"))
    added = SpecStore(make_engine(url), topic=settings.topic).seed(catalog_from_dict(catalog))
    typer.echo(f"seeded {added} products")
