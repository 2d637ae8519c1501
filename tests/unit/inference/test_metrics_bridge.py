"""Metrics bridge: parse replica metrics, export per-replica hit ratio and KV usage."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client import CollectorRegistry

from services.inference.metrics_bridge import (
    MetricsBridge,
    MetricsParseError,
    ReplicaCacheMetrics,
    parse_replica_metrics,
    window_hit_ratio,
)

VLLM_V1 = """# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 750.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
"""

VLLM_V0 = """# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.5
"""


def test_parse_vllm_v1_exposition() -> None:
    metrics = parse_replica_metrics(VLLM_V1)
    assert (metrics.queried_tokens, metrics.hit_tokens, metrics.kv_usage) == (1000, 750, 0.25)
    assert metrics.hit_ratio == 0.75


def test_parse_falls_back_to_the_v0_kv_name_and_tolerates_missing_counters() -> None:
    metrics = parse_replica_metrics(VLLM_V0)
    assert metrics.kv_usage == 0.5 and metrics.hit_ratio is None


def test_garbage_is_a_typed_error() -> None:
    with pytest.raises(MetricsParseError):
        parse_replica_metrics("vllm:x{ 1 2 3")


def test_window_ratio_and_restart() -> None:
    before = ReplicaCacheMetrics(1000, 500, None, 0, 0)
    after = ReplicaCacheMetrics(1400, 800, None, 0, 0)
    assert window_hit_ratio(before, after) == pytest.approx(0.75)
    assert window_hit_ratio(after, before) is None
    assert window_hit_ratio(after, after) is None


async def test_bridge_exports_per_replica_gauges_and_marks_dead_replicas() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "up":
            return httpx.Response(200, text=VLLM_V1)
        raise httpx.ConnectError("refused", request=request)

    registry = CollectorRegistry()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        bridge = MetricsBridge({"a": "http://up:1", "b": "http://down:1"}, client, registry)
        reports = {r.replica: r for r in await bridge.scrape_once()}
    assert reports["a"].up and not reports["b"].up
    value = registry.get_sample_value
    assert value("cachecoh_inference_prefix_hit_ratio", {"replica": "a"}) == 0.75
    assert value("cachecoh_inference_kv_cache_usage", {"replica": "a"}) == 0.25
    assert value("cachecoh_inference_replica_up", {"replica": "b"}) == 0.0
