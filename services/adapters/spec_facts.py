"""Product facts for prompts, read from the spec store on every miss.

Facts are never cached in the gateway: a copy kept across requests could be older than
the generation snapshot taken just before the read, and the answer built from it would
then be stored as if it were current.
"""

from __future__ import annotations

import asyncio

from sqlalchemy.exc import SQLAlchemyError

from services.adapters.sql.spec_store import SpecStore
from services.core.catalog import STORE_PRODUCT_ID, ProductFacts
from services.core.errors import DatabaseUnavailable


class SpecStoreFacts:
    """Reads facts through the synchronous spec store in a worker thread."""

    def __init__(self, spec_store: SpecStore) -> None:
        self._spec_store = spec_store

    def _get(self, product: str) -> ProductFacts | None:
        try:
            return self._spec_store.get(product)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"spec store read failed: {type(exc).__name__}") from exc

    async def read(self, product: str, *, with_store: bool) -> tuple[ProductFacts, ...] | None:
        """The product's facts (plus the store's policies for policy answers), or None."""
        facts = await asyncio.to_thread(self._get, product)
        if facts is None:
            return None
        if with_store and product != STORE_PRODUCT_ID:
            store = await asyncio.to_thread(self._get, STORE_PRODUCT_ID)
            return (facts, store) if store is not None else (facts,)
        return (facts,)
