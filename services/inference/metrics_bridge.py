"""Metrics bridge: scrape each replica's ``/metrics`` (vLLM or the offline engine) and
export per-replica prefix-cache hit ratio and KV usage for the dashboards.

vLLM exports raw counters (queried and hit tokens); a ratio needs two of them and, to be
useful on a dashboard, a window. The bridge exports both the lifetime ratio and the ratio
over the last scrape interval, labelled by replica, so one panel covers the whole fleet.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import httpx
from prometheus_client import CollectorRegistry, Gauge
from prometheus_client.parser import text_string_to_metric_families

from services.core.errors import CachecohError

logger = logging.getLogger(__name__)

PREFIX_QUERIES = "vllm:prefix_cache_queries_total"
PREFIX_HITS = "vllm:prefix_cache_hits_total"
#: vLLM v1 name first, then the v0 name.
KV_USAGE_NAMES = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
REQUESTS_RUNNING = "vllm:num_requests_running"
REQUESTS_WAITING = "vllm:num_requests_waiting"
REQUEST_SUCCESS = "vllm:request_success_total"


class MetricsParseError(CachecohError, ValueError):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot parse replica metrics: {reason}")


@dataclass(frozen=True, slots=True)
class ReplicaCacheMetrics:
    """A replica's prefix-cache counters at one scrape (summed over label sets)."""

    queried_tokens: float
    hit_tokens: float
    kv_usage: float | None
    requests_running: float
    requests_succeeded: float
    requests_waiting: float = 0.0

    @property
    def hit_ratio(self) -> float | None:
        return self.hit_tokens / self.queried_tokens if self.queried_tokens else None


def parse_replica_metrics(text: str) -> ReplicaCacheMetrics:
    """Read the prefix-cache numbers from a Prometheus text exposition."""
    totals: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                totals[sample.name] = totals.get(sample.name, 0.0) + float(sample.value)
    except ValueError as exc:
        raise MetricsParseError(str(exc)) from exc
    kv_usage = next((totals[name] for name in KV_USAGE_NAMES if name in totals), None)
    return ReplicaCacheMetrics(
        queried_tokens=totals.get(PREFIX_QUERIES, 0.0),
        hit_tokens=totals.get(PREFIX_HITS, 0.0),
        kv_usage=kv_usage,
        requests_running=totals.get(REQUESTS_RUNNING, 0.0),
        requests_succeeded=totals.get(REQUEST_SUCCESS, 0.0),
        requests_waiting=totals.get(REQUESTS_WAITING, 0.0),
    )


def window_hit_ratio(previous: ReplicaCacheMetrics, current: ReplicaCacheMetrics) -> float | None:
    """Hit ratio between two scrapes; ``None`` without traffic or after a restart
    (counters that went down)."""
    queried = current.queried_tokens - previous.queried_tokens
    hits = current.hit_tokens - previous.hit_tokens
    if queried <= 0 or hits < 0:
        return None
    return hits / queried


@dataclass(frozen=True, slots=True)
class ReplicaCacheReport:
    replica: str
    up: bool
    metrics: ReplicaCacheMetrics | None
    window_hit_ratio: float | None


class MetricsBridge:
    def __init__(
        self,
        targets: Mapping[str, str],
        client: httpx.AsyncClient,
        registry: CollectorRegistry,
        *,
        timeout: float = 2.0,
    ) -> None:
        """``targets``: replica name -> base URL."""
        self._targets = dict(targets)
        self._client = client
        self._timeout = timeout
        self._previous: dict[str, ReplicaCacheMetrics] = {}
        labels = ["replica"]
        self._up = Gauge(
            "cachecoh_inference_replica_up",
            "1 if the replica's /metrics answered.",
            labels,
            registry=registry,
        )
        self._hit_ratio = Gauge(
            "cachecoh_inference_prefix_hit_ratio",
            "Prefix-cache hit ratio (hit / queried tokens) since the replica started.",
            labels,
            registry=registry,
        )
        self._window_hit_ratio = Gauge(
            "cachecoh_inference_prefix_hit_ratio_window",
            "Prefix-cache hit ratio over the last scrape interval.",
            labels,
            registry=registry,
        )
        self._kv_usage = Gauge(
            "cachecoh_inference_kv_cache_usage",
            "KV-cache usage (0..1) reported by the replica.",
            labels,
            registry=registry,
        )

    async def scrape_once(self) -> list[ReplicaCacheReport]:
        return list(await asyncio.gather(*(self._scrape(n, u) for n, u in self._targets.items())))

    async def _scrape(self, name: str, url: str) -> ReplicaCacheReport:
        try:
            response = await self._client.get(f"{url}/metrics", timeout=self._timeout)
            response.raise_for_status()
            current = parse_replica_metrics(response.text)
        except (httpx.HTTPError, MetricsParseError) as exc:
            logger.info("scrape of %s failed: %s", name, exc)
            self._up.labels(replica=name).set(0)
            return ReplicaCacheReport(name, False, None, None)
        previous = self._previous.get(name)
        self._previous[name] = current
        window = window_hit_ratio(previous, current) if previous else None
        self._up.labels(replica=name).set(1)
        if current.hit_ratio is not None:
            self._hit_ratio.labels(replica=name).set(current.hit_ratio)
        if window is not None:
            self._window_hit_ratio.labels(replica=name).set(window)
        if current.kv_usage is not None:
            self._kv_usage.labels(replica=name).set(current.kv_usage)
        return ReplicaCacheReport(name, True, current, window)

    async def run(
        self,
        interval: float,
        on_report: Callable[[ReplicaCacheReport], None] | None = None,
    ) -> None:
        """Scrape every ``interval`` seconds; ``on_report`` sees each replica's report
        (the router feeds the load figures to its routing)."""
        while True:
            for report in await self.scrape_once():
                if on_report is not None:
                    on_report(report)
            await asyncio.sleep(interval)
