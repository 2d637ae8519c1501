"""Product directory for the worker: which products exist and their variant values.

Backed by the spec store (SQL), cached in memory, refreshed in a thread so the event
loop never blocks on the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Mapping
from types import MappingProxyType

from sqlalchemy.exc import SQLAlchemyError

from services.adapters.sql.spec_store import SpecStore
from services.core.catalog import ProductFacts
from services.core.errors import DatabaseUnavailable

log = logging.getLogger(__name__)


def variants_of(facts: ProductFacts) -> Mapping[str, frozenset[str]]:
    """Attribute → constraint values, for attributes that vary (``{"by": ..., "values"}``)."""
    out: dict[str, frozenset[str]] = {}
    for attribute, spec in facts.specs.items():
        if isinstance(spec, Mapping) and "values" in spec and "by" in spec:
            out[attribute] = frozenset(spec["values"].keys())
    return MappingProxyType(out)


class SpecStoreDirectory:
    def __init__(self, store: SpecStore, *, refresh_s: float = 30.0) -> None:
        self._store = store
        self._refresh_s = refresh_s
        self._products: dict[str, Mapping[str, frozenset[str]]] = {}
        self._loaded_at = 0.0
        self._lock = asyncio.Lock()

    async def _refresh(self, *, force: bool) -> None:
        if not force and time.monotonic() - self._loaded_at < self._refresh_s:
            return  # fresh: the common case, on every event, needs no lock
        async with self._lock:
            age = time.monotonic() - self._loaded_at
            # An unknown id forces a refresh, but at most once a second.
            if (not force and age < self._refresh_s) or (force and age < 1.0):
                return
            try:
                facts = await asyncio.to_thread(self._store.all)
            except SQLAlchemyError as exc:
                if self._loaded_at and not force:
                    # Keep serving the last good copy; variants only narrow bumps.
                    log.warning(
                        "spec store refresh failed (%s); using cached directory",
                        exc.__class__.__name__,
                    )
                    self._loaded_at = time.monotonic() - self._refresh_s + 5.0
                    return
                raise DatabaseUnavailable(
                    f"spec store read failed: {exc.__class__.__name__}"
                ) from exc
            self._products = {f.product_id: variants_of(f) for f in facts}
            self._loaded_at = time.monotonic()

    async def knows(self, product_id: str) -> bool:
        await self._refresh(force=False)
        if product_id not in self._products:
            await self._refresh(force=True)
        return product_id in self._products

    async def variants(self, product_id: str) -> Mapping[str, Collection[str]]:
        await self._refresh(force=False)
        return self._products.get(product_id, MappingProxyType({}))

    async def product_ids(self) -> Collection[str]:
        await self._refresh(force=False)
        return tuple(self._products)
