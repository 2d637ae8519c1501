"""audit rows keyed by the CloudEvents (source, id), not the id alone

An event id is unique only per source: an ERP and a PIM event with the same id are two
events, and both get a row.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: 0001 created the event_id unique constraint without a name; SQLite's batch mode
#: needs one to drop it, Postgres named it after its own convention.
_SQLITE_NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
_SQLITE_OLD_UNIQUE = "uq_coherence_audit_event_id"


def _old_unique_name() -> str:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        return _SQLITE_OLD_UNIQUE
    for constraint in sa.inspect(bind).get_unique_constraints("coherence_audit"):
        if constraint["column_names"] == ["event_id"] and constraint["name"]:
            return str(constraint["name"])
    raise RuntimeError("coherence_audit has no unique constraint on event_id to replace")


def upgrade() -> None:
    old_unique = _old_unique_name()
    with op.batch_alter_table("coherence_audit", naming_convention=_SQLITE_NAMES) as batch:
        batch.add_column(
            sa.Column("event_source", sa.String(length=255), nullable=False, server_default="")
        )
        batch.drop_constraint(old_unique, type_="unique")
        batch.create_unique_constraint(
            "uq_coherence_audit_source_event", ["event_source", "event_id"]
        )
        batch.create_index("ix_coherence_audit_event_id", ["event_id"])


def downgrade() -> None:
    with op.batch_alter_table("coherence_audit", naming_convention=_SQLITE_NAMES) as batch:
        batch.drop_index("ix_coherence_audit_event_id")
        batch.drop_constraint("uq_coherence_audit_source_event", type_="unique")
        batch.drop_column("event_source")
        batch.create_unique_constraint(_SQLITE_OLD_UNIQUE, ["event_id"])
