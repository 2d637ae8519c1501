"""Guarded fills: an answer is stored only if its tags' generations did not move since
the snapshot taken before its facts were read (a refused fill is counted, never an error).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from services.core.answers import (
    AnswerMeta,
    CachedAnswer,
    NotCacheable,
    StreamAssembly,
    answer_texts,
    check_cacheable,
    encode_answer,
    etag_of,
)
from services.core.entries import Snapshot
from services.core.errors import StoreUnavailable
from services.core.keys import Layer
from services.core.response_identity import conform_completion, stable_bytes
from services.gateway.metrics import GatewayMetrics
from services.gateway.ports import AnswerStore, PiiFinder, RequestPointerStore
from services.gateway.values import LAYER_NAMES, FillPlan

log = logging.getLogger(__name__)


class AnswerFiller:
    def __init__(
        self,
        store: AnswerStore,
        pointers: RequestPointerStore,
        redactor: PiiFinder,
        metrics: GatewayMetrics,
        clock: Callable[[], float],
        *,
        offload_chars: int,
    ) -> None:
        self._store = store
        self._pointers = pointers
        self._redactor = redactor
        self._metrics = metrics
        self._clock = clock
        self._offload_chars = offload_chars
        self._background: set[asyncio.Task[None]] = set()

    async def fill(
        self,
        plan: FillPlan,
        response: Mapping[str, Any],
        chunks: tuple[str, ...] = (),
    ) -> dict[Layer, bytes]:
        """Guarded fills of every enabled layer with one snapshot; returns what was stored."""
        metrics = self._metrics
        if plan.no_store:
            metrics.fill_skipped.labels("no_store").inc()
            return {}
        if plan.snapshot is None:
            metrics.fill_skipped.labels("store_unavailable").inc()
            return {}
        try:
            check_cacheable(response)
        except NotCacheable as exc:
            metrics.fill_skipped.labels(exc.reason).inc()
            return {}
        if await self._has_personal_data(answer_texts(response)):
            metrics.fill_skipped.labels("personal_data_in_answer").inc()
            return {}
        keys = plan.keys
        # Stored without id/created: every serving gets its own (response_identity).
        stable = stable_bytes(response)
        meta = AnswerMeta(
            layer="",
            created_at=self._clock(),
            product=keys.product,
            cid=plan.fingerprint.cid if plan.fingerprint is not None else "",
            tags=tuple(sorted(str(t) for t in keys.tags)),
            generations=plan.snapshot.generations,
            spec_versions={f.product_id: f.spec_version for f in plan.facts},
            etag=etag_of(stable),
            chunks=chunks,
            prompt_tokens=_usage_count(response, "prompt_tokens"),
            completion_tokens=_usage_count(response, "completion_tokens"),
            origin=str(response.get("id", "")),
        )
        targets = [
            (Layer.SEMANTIC, keys.semantic, plan.semantic_ttl_ms),
            (Layer.REQUEST, keys.request, plan.request_ttl_ms),
        ]
        stored: dict[Layer, bytes] = {}
        for layer, digest, ttl_ms in targets:
            if digest is None:
                continue
            body = encode_answer(replace(meta, layer=layer.value), stable)
            try:
                if not await self._store.fill(layer, digest, plan.snapshot, body, ttl_ms):
                    metrics.fill_refused.labels(LAYER_NAMES[layer]).inc()
                    log.info(
                        "fill refused: %s entry of %s changed meanwhile", layer.value, keys.product
                    )
                    continue
                if layer is Layer.REQUEST:
                    await self._pointers.point(digest, keys.product, ttl_ms)
            except StoreUnavailable:
                metrics.store_errors.labels("fill").inc()
                continue
            metrics.fills.labels(LAYER_NAMES[layer]).inc()
            stored[layer] = body
        return stored

    async def _has_personal_data(self, texts: list[str]) -> bool:
        def found() -> bool:
            return any(self._redactor.redact(text).found for text in texts)

        if sum(len(t) for t in texts) > self._offload_chars:
            self._metrics.offloaded.labels("answer_redaction").inc()
            return await asyncio.to_thread(found)
        return found()

    async def fill_streamed(self, assembly: StreamAssembly, plan: FillPlan) -> dict[Layer, bytes]:
        """Fill from a relayed stream's chunks (kept, so a hit replays the same chunks)."""
        try:
            response = conform_completion(assembly.completion())
        except NotCacheable as exc:
            self._metrics.fill_skipped.labels(exc.reason).inc()
            return {}
        return await self.fill(plan, response, assembly.chunks)

    def promote(self, answer: CachedAnswer, request_digest: str, ttl_ms: int) -> None:
        """Copy a semantic hit into the request layer, in the background, guarded by the
        generations the semantic entry was stored with."""
        snapshot = Snapshot(answer.meta.product, answer.meta.generations)
        body = encode_answer(replace(answer.meta, layer=Layer.REQUEST.value), answer.response)

        async def promote() -> None:
            try:
                if await self._store.fill(Layer.REQUEST, request_digest, snapshot, body, ttl_ms):
                    await self._pointers.point(request_digest, snapshot.product, ttl_ms)
                    self._metrics.fills.labels("request").inc()
                else:
                    self._metrics.fill_refused.labels("request").inc()
            except StoreUnavailable:
                self._metrics.store_errors.labels("promote").inc()

        task = asyncio.create_task(promote())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def aclose(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)


def _usage_count(response: Mapping[str, Any], name: str) -> int:
    usage = response.get("usage")
    value = usage.get(name) if isinstance(usage, Mapping) else None
    return int(value) if isinstance(value, int) else 0
