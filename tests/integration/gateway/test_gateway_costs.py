"""The cost ledger: what the caches saved, per layer, as Prometheus counters."""

from __future__ import annotations

import pytest

from services.inference.launcher import ManagedProcess
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import chat_body

pytestmark = pytest.mark.integration


async def test_hits_and_prefix_reuse_show_up_as_savings(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        for question in ("Xiaomi 14 重量", "Xiaomi 14 重量", "小米14有多重", "Xiaomi 14 weight"):
            response = await client.post("/v1/chat/completions", json=chat_body(question))
            assert response.status_code == 200
    without = await gateway.metric("cachecoh_cost_without_cache_usd_total")
    with_cache = await gateway.metric("cachecoh_cost_with_cache_usd_total")
    assert without > 0 and 0 < with_cache < without
    assert await gateway.metric("cachecoh_cost_saved_usd_total", layer="request") > 0
    assert await gateway.metric("cachecoh_cost_saved_usd_total", layer="semantic") > 0
    rate = await gateway.metric("cachecoh_cost_savings_rate")
    assert rate == pytest.approx((without - with_cache) / without, rel=1e-6)
