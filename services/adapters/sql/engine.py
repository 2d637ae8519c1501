"""Engine creation and migrations (Alembic, run programmatically)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from services.core.errors import DatabaseUnavailable

MIGRATIONS = str(Path(__file__).resolve().parent / "migrations")


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for Postgres (psycopg 3) or SQLite (WAL, so readers don't block)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


def insert_or_ignore(engine: Engine, table: Any, keys: list[str]) -> Any:
    """``INSERT ... ON CONFLICT (keys) DO NOTHING`` for Postgres and SQLite: concurrent or
    repeated writers of the same row never fail (check-then-insert would race)."""
    if engine.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=keys)
    if engine.dialect.name == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=keys)
    raise NotImplementedError(engine.dialect.name)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", MIGRATIONS)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


#: alembic's ``context`` is one global per process: two threads migrating at once would run
#: each other's migrations, so migrations take turns.
_MIGRATING = threading.Lock()


def upgrade(url: str, revision: str = "head") -> None:
    """Apply migrations up to ``revision`` (idempotent); ``DatabaseUnavailable`` if the
    database cannot be reached."""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            cfg = alembic_config(url)
            cfg.attributes["connection"] = connection
            with _MIGRATING:
                command.upgrade(cfg, revision)
    except OperationalError as exc:
        where = make_url(url).render_as_string(hide_password=True)
        reason = str(exc.orig or exc).strip().splitlines()[0]
        raise DatabaseUnavailable(f"cannot migrate {where}: {reason}") from exc
    finally:
        engine.dispose()


def current_revision(url: str) -> str | None:
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
