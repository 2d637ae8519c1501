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
    """Load the demo catalog and store policies into the spec store (existing rows kept)."""
    from services.adapters.demo_catalog import load_demo_catalog
    from services.adapters.sql.engine import make_engine
    from services.adapters.sql.engine import upgrade as run_upgrade
    from services.adapters.sql.spec_store import SpecStore
    from services.settings import CommonSettings

    settings = CommonSettings()
    url = settings.database_url.get_secret_value()
    run_upgrade(url)
    added = SpecStore(make_engine(url), topic=settings.topic).seed(
        load_demo_catalog(settings.data_dir)
    )
    typer.echo(f"seeded {added} products")
