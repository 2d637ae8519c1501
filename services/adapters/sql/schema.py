"""Tables. Postgres in production, SQLite for the embedded default; Alembic owns DDL.

No table holds personal data: product ids, field names, tags, tenant ids and offsets.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# SQLite only auto-increments INTEGER PRIMARY KEY columns.
BigId = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[str]: JSON}  # noqa: RUF012 - SQLAlchemy API


class ProductSpec(Base):
    """The current spec of each product (the business system's source of truth)."""

    __tablename__ = "product_specs"

    product_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    category: Mapped[str] = mapped_column(String(32))
    brand: Mapped[str] = mapped_column(String(64))
    names: Mapped[dict[str, Any]] = mapped_column(JSON)
    specs: Mapped[dict[str, Any]] = mapped_column(JSON)
    spec_version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ProductSpecVersion(Base):
    """Every version of every product row (what an answer was built from)."""

    __tablename__ = "product_spec_versions"

    product_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    spec_version: Mapped[int] = mapped_column(Integer, primary_key=True)
    specs: Mapped[dict[str, Any]] = mapped_column(JSON)
    changed_fields: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class OutboxRow(Base):
    """Transactional outbox: written with the spec change, published by the relay."""

    __tablename__ = "spec_outbox"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(String(128), unique=True)
    topic: Mapped[str] = mapped_column(String(255))
    kafka_key: Mapped[bytes] = mapped_column(LargeBinary)
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class AuditRow(Base):
    """One row per consumed record: applied, duplicate or dead-lettered."""

    __tablename__ = "coherence_audit"
    # CloudEvents identify an event by (source, id): an id is unique only per source.
    __table_args__ = (
        UniqueConstraint("event_source", "event_id", name="uq_coherence_audit_source_event"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    # The event id, or "dlq:<topic>:<partition>:<offset>" when the record had none.
    event_id: Mapped[str] = mapped_column(String(160), index=True)
    # The CloudEvents source ("" for a record without a usable envelope).
    event_source: Mapped[str] = mapped_column(String(255), default="", server_default="")
    product_id: Mapped[str | None] = mapped_column(String(64), index=True)
    spec_version: Mapped[int | None] = mapped_column(BigInteger)
    tenant: Mapped[str | None] = mapped_column(String(64))
    changed_fields: Mapped[list[str]] = mapped_column(JSON)
    tags: Mapped[list[str]] = mapped_column(JSON)
    outcome: Mapped[str] = mapped_column(String(24), index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    topic: Mapped[str] = mapped_column(String(255))
    partition: Mapped[int] = mapped_column(Integer)
    offset: Mapped[int] = mapped_column(BigInteger)
    event_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    applied_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lag_ms: Mapped[float | None] = mapped_column(Float)
    worker: Mapped[str] = mapped_column(String(128))
