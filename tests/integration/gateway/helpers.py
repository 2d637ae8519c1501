"""Helpers of the gateway integration tests (requests, spec changes, engine counters)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from services.adapters.redis_tag_store import RedisTagStore
from services.adapters.sql.spec_store import SpecStore
from services.core.events import ProductSpecUpdated
from services.core.mapping import MappingSet, plan_invalidation
from services.inference.launcher import ManagedProcess

MODEL = "cachecoh-offline"
KEY_A = "sk-tenant-a-0123456789"
KEY_B = "sk-tenant-b-0123456789"
ADMIN_TOKEN = "admin-token-0123456789"


def chat_body(question: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [{"role": "user", "content": question}],
        "temperature": 0,
        "max_tokens": 64,
        **extra,
    }


async def publish_change(
    store: RedisTagStore,
    spec_store: SpecStore,
    mappings: MappingSet,
    product: str,
    changes: dict[str, Any],
) -> ProductSpecUpdated:
    """What the business system and the coherence worker do for one spec change: update
    the spec store (which emits the event), plan the bumps, apply them to Redis."""
    event = await asyncio.to_thread(spec_store.update, product, changes)
    assert event is not None
    facts = await asyncio.to_thread(spec_store.get, product)
    assert facts is not None
    variants = {
        attribute: tuple(spec["values"])
        for attribute, spec in facts.specs.items()
        if isinstance(spec, dict) and "values" in spec
    }
    plan = plan_invalidation(
        event,
        mappings,
        variants=variants,
        all_products=await asyncio.to_thread(spec_store.product_ids),
    )
    for bump in plan.bumps:
        await store.bump(bump, event_id=event.event_id, spec_version=event.spec_version)
    return event


async def engine_requests(engine: ManagedProcess) -> float:
    """Finished chat completions the engine has served (vLLM's request_success counter)."""
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{engine.url}/metrics")).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "vllm:request_success_total"
    )


async def engine_running(engine: ManagedProcess) -> float:
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{engine.url}/metrics")).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "vllm:num_requests_running"
    )
