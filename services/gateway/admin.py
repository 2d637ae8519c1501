"""The admin API's operations: kill switches, purge by tag, entry metadata."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.core.answers import age_seconds, decode_answer
from services.core.chat_request import InvalidRequest
from services.core.keys import Layer
from services.core.mapping import ProductBump
from services.core.tags import parse_field
from services.gateway.errors import UnknownCacheKey
from services.gateway.ports import EntryReader, GenerationBumper, KillSwitches, RequestPointerStore
from services.gateway.values import PurgeResult


@dataclass
class AdminService:
    switches: KillSwitches
    bumper: GenerationBumper
    entries: EntryReader
    pointers: RequestPointerStore
    clock: Callable[[], float] = time.time

    async def kill_switches(self) -> dict[str, bool]:
        return (await self.switches.refresh()).as_dict()

    async def set_kill_switch(self, layer: str, enabled: bool) -> dict[str, bool]:
        return (await self.switches.set(layer, enabled)).as_dict()

    async def purge(self, tag: str, *, purge_id: str) -> PurgeResult:
        """Invalidate every answer carrying ``tag`` (``product/field``) by bumping it."""
        product, sep, tag_field = tag.partition("/")
        if not sep:
            raise InvalidRequest("tag", "must be '<product>/<field>' as in Surrogate-Key")
        try:
            parsed = parse_field(product, tag_field)
        except ValueError as exc:
            raise InvalidRequest("tag", str(exc)) from exc
        result = await self.bumper.bump(
            ProductBump(parsed.product, (parsed.field,)),
            event_id=f"admin-purge:{purge_id}",
            spec_version=-1,
        )
        generations = dict(result.generations)
        return PurgeResult(str(parsed), generations.get(parsed.field))

    async def entry(self, cache_key: str) -> dict[str, Any] | None:
        """Metadata of the entry named by an ``X-Cache-Key`` value (never its text)."""
        layer_name, _, rest = cache_key.partition(":")
        product, _, digest = rest.rpartition(":")
        try:
            layer = Layer(layer_name)
        except ValueError as exc:
            raise UnknownCacheKey(cache_key) from exc
        if not digest or len(digest) != 64:
            raise UnknownCacheKey(cache_key)
        if not product and layer is Layer.REQUEST:
            product = await self.pointers.product_of(digest) or ""
        if not product:
            return None
        try:
            record = await self.entries.read(product, layer, digest)
        except ValueError as exc:
            raise UnknownCacheKey(cache_key) from exc
        if record is None:
            return None
        meta = decode_answer(record.body).meta
        return {
            "key": f"{layer.value}:{product}:{digest}",
            "layer": layer.value,
            "product": product,
            "valid": record.valid,
            "ttl_ms": record.ttl_ms,
            "created_at": meta.created_at,
            "age_s": age_seconds(meta.created_at, self.clock()),
            "cid": meta.cid,
            "tags": list(meta.tags),
            "spec_versions": dict(meta.spec_versions),
            "etag": meta.etag,
            "streamed": bool(meta.chunks),
            "generations": {
                "stored": record.stored_generations,
                "current": record.current_generations,
            },
        }
