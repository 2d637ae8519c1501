"""The spec store: products versioned row by row, with a transactional outbox.

An update writes the new spec, its history row and the outbox row carrying the
``ProductSpecUpdated`` event in one transaction, so a crash between commit and
publish loses nothing: the relay publishes whatever is still unsent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from services.adapters.sql.engine import insert_or_ignore
from services.adapters.sql.schema import OutboxRow, ProductSpec, ProductSpecVersion
from services.core.catalog import ProductFacts, apply_spec_changes, product_from_dict
from services.core.errors import CachecohError, DatabaseUnavailable
from services.core.events import ProductSpecUpdated, new_event


class UnknownProduct(CachecohError):
    def __init__(self, product_id: str) -> None:
        self.product_id = product_id
        super().__init__(f"unknown product {product_id!r}")


@dataclass(frozen=True, slots=True)
class PendingOutbox:
    id: int
    event_id: str
    topic: str
    key: bytes
    payload: bytes


def _facts(row: ProductSpec) -> ProductFacts:
    return product_from_dict(
        {
            "id": row.product_id,
            "category": row.category,
            "brand": row.brand,
            "names": row.names,
            "specs": row.specs,
        },
        spec_version=row.spec_version,
    )


class SpecStore:
    """Read and change product specs (the demo business system's database)."""

    def __init__(self, engine: Engine, *, topic: str, source: str = "cachecoh/spec-store") -> None:
        self._engine = engine
        self._topic = topic
        self._source = source

    @property
    def engine(self) -> Engine:
        return self._engine

    def seed(self, products: Iterable[ProductFacts]) -> int:
        """Insert products that are not there yet; returns how many were added."""
        now = datetime.now(UTC)
        added = 0
        # Insert-or-ignore: two processes seeding an empty store at once must both succeed.
        with self._engine.begin() as conn:
            for facts in products:
                raw = facts.to_dict()
                result = conn.execute(
                    insert_or_ignore(self._engine, ProductSpec, ["product_id"]).values(
                        product_id=facts.product_id,
                        category=facts.category,
                        brand=facts.brand,
                        names=raw["names"],
                        specs=raw["specs"],
                        spec_version=facts.spec_version,
                        updated_at=now,
                    )
                )
                conn.execute(
                    insert_or_ignore(
                        self._engine, ProductSpecVersion, ["product_id", "spec_version"]
                    ).values(
                        product_id=facts.product_id,
                        spec_version=facts.spec_version,
                        specs=raw["specs"],
                        changed_fields=[],
                        created_at=now,
                    )
                )
                added += result.rowcount or 0
        return added

    def get(self, product_id: str) -> ProductFacts | None:
        with Session(self._engine) as session:
            row = session.get(ProductSpec, product_id)
            return _facts(row) if row else None

    def all(self) -> list[ProductFacts]:
        with Session(self._engine) as session:
            return [_facts(r) for r in session.scalars(select(ProductSpec))]

    def product_ids(self) -> list[str]:
        with Session(self._engine) as session:
            return list(session.scalars(select(ProductSpec.product_id)))

    def version(self, product_id: str, spec_version: int) -> dict[str, Any] | None:
        with Session(self._engine) as session:
            row = session.get(ProductSpecVersion, (product_id, spec_version))
            return dict(row.specs) if row else None

    def update(
        self,
        product_id: str,
        changes: Mapping[str, Any],
        *,
        tenant: str | None = None,
    ) -> ProductSpecUpdated | None:
        """Apply changes, bump the version, queue the event; None if nothing changed."""
        try:
            with Session(self._engine) as session, session.begin():
                row = session.execute(
                    select(ProductSpec)
                    .where(ProductSpec.product_id == product_id)
                    .with_for_update()
                ).scalar_one_or_none()
                if row is None:
                    raise UnknownProduct(product_id)
                specs, changed = apply_spec_changes(row.specs, changes)
                if not changed:
                    return None
                now = datetime.now(UTC)
                row.specs = specs
                row.spec_version += 1
                row.updated_at = now
                session.add(
                    ProductSpecVersion(
                        product_id=product_id,
                        spec_version=row.spec_version,
                        specs=specs,
                        changed_fields=list(changed),
                        created_at=now,
                    )
                )
                event = new_event(
                    product_id, changed, row.spec_version, source=self._source, tenant=tenant
                )
                session.add(
                    OutboxRow(
                        event_id=event.event_id,
                        topic=self._topic,
                        kafka_key=event.kafka_key,
                        payload=event.to_bytes(),
                        created_at=now,
                        attempts=0,
                    )
                )
                return event
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(
                f"spec store update failed: {exc.__class__.__name__}"
            ) from exc

    # -- outbox -----------------------------------------------------------------------

    def pending_outbox(self, limit: int = 500) -> list[PendingOutbox]:
        with Session(self._engine) as session:
            rows = session.scalars(
                select(OutboxRow)
                .where(OutboxRow.sent_at.is_(None))
                .order_by(OutboxRow.id)
                .limit(limit)
            )
            return [PendingOutbox(r.id, r.event_id, r.topic, r.kafka_key, r.payload) for r in rows]

    def mark_sent(self, ids: Iterable[int]) -> None:
        ids = list(ids)
        if not ids:
            return
        with self._engine.begin() as conn:
            conn.execute(
                update(OutboxRow).where(OutboxRow.id.in_(ids)).values(sent_at=datetime.now(UTC))
            )

    def mark_failed(self, outbox_id: int, error: str) -> None:
        with self._engine.begin() as conn:
            conn.execute(
                update(OutboxRow)
                .where(OutboxRow.id == outbox_id)
                .values(attempts=OutboxRow.attempts + 1, last_error=error[:500])
            )
