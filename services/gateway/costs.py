"""The cost ledger: CSR per layer as Prometheus counters (arithmetic in ``core.csr``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge

from services.core.csr import (
    CostEntry,
    CostLayer,
    PriceTable,
    Usage,
    cost_of_hit,
    cost_of_upstream_call,
    savings_rate,
)


def usage_of(raw: Any) -> Usage | None:
    """OpenAI ``usage`` (with vLLM's ``prompt_tokens_details.cached_tokens``), if present."""
    if not isinstance(raw, Mapping):
        return None
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, Mapping) else 0
    try:
        return Usage(
            int(raw.get("prompt_tokens") or 0),
            int(raw.get("completion_tokens") or 0),
            int(cached or 0),
        )
    except (TypeError, ValueError):
        return None


@dataclass
class CostLedger:
    prices: PriceTable
    without_cache: Counter
    with_cache: Counter
    saved: Counter
    lookup_overhead: Counter
    rate: Gauge
    unpriced: Counter
    _without: float = 0.0
    _with: float = 0.0

    @classmethod
    def create(cls, prices: PriceTable, registry: CollectorRegistry) -> CostLedger:
        return cls(
            prices=prices,
            without_cache=Counter(
                "cachecoh_cost_without_cache_usd",
                "What the answered requests would have cost with no cache at all.",
                registry=registry,
            ),
            with_cache=Counter(
                "cachecoh_cost_with_cache_usd",
                "What they cost: upstream calls (with prefix-cache discount) plus lookups.",
                registry=registry,
            ),
            saved=Counter(
                "cachecoh_cost_saved_usd",
                "Gross saving attributed to each layer (request, semantic, prefix).",
                ["layer"],
                registry=registry,
            ),
            lookup_overhead=Counter(
                "cachecoh_cost_lookup_overhead_usd",
                "Cost of lookups that did not save a call, by the layer that looked up.",
                ["layer"],
                registry=registry,
            ),
            rate=Gauge(
                "cachecoh_cost_savings_rate",
                "CSR since this gateway started: Σ(without − with) / Σ(without).",
                registry=registry,
            ),
            unpriced=Counter(
                "cachecoh_cost_unpriced_calls",
                "Upstream calls without usage (e.g. a bypassed stream): left out of CSR.",
                registry=registry,
            ),
        )

    def hit(self, model: str, layer: CostLayer, usage: Usage, lookups: int) -> None:
        self._book(cost_of_hit(self.prices, model, usage, layer, lookups))

    def upstream_call(self, model: str, raw_usage: Any, lookups: Mapping[CostLayer, int]) -> None:
        usage = usage_of(raw_usage)
        if usage is None:
            self.unpriced.inc()
            return
        self._book(cost_of_upstream_call(self.prices, model, usage, lookups))

    def _book(self, entry: CostEntry) -> None:
        self.without_cache.inc(entry.without_cache)
        self.with_cache.inc(entry.with_cache)
        for layer, amount in entry.saved_by.items():
            # Counters only go up: a layer's negative contribution is its lookup overhead.
            if amount >= 0:
                self.saved.labels(layer.value).inc(amount)
            else:
                self.lookup_overhead.labels(layer.value).inc(-amount)
        self._without += entry.without_cache
        self._with += entry.with_cache
        self.rate.set(savings_rate(self._without, self._with))

    def snapshot(self) -> dict[str, float]:
        return {"without_cache_usd": self._without, "with_cache_usd": self._with}
