"""The cost ledger: CSR per layer as Prometheus counters (arithmetic in ``core.csr``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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

#: Distinct (model, layer, usage, lookups) hit costs kept; beyond, the memo starts over.
_HIT_ENTRIES = 4096


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
    #: A hit's entry depends only on these; computed once per key (hits repeat them).
    _hit_entries: dict[tuple[str, CostLayer, Usage, int], CostEntry] = field(
        default_factory=dict, init=False, repr=False
    )
    #: The labelled counters per layer, resolved once (``labels`` takes a lock per call).
    _saved_by: dict[CostLayer, Any] = field(default_factory=dict, init=False, repr=False)
    _overhead_by: dict[CostLayer, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        # Read when scraped, not set per booking (a locked gauge update per hit).
        self.rate.set_function(lambda: savings_rate(self._without, self._with))

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
        key = (model, layer, usage, lookups)
        entry = self._hit_entries.get(key)
        if entry is None:
            if len(self._hit_entries) >= _HIT_ENTRIES:
                self._hit_entries.clear()
            entry = self._hit_entries[key] = cost_of_hit(self.prices, model, usage, layer, lookups)
        self._book(entry)

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
                saved = self._saved_by.get(layer)
                if saved is None:
                    saved = self._saved_by[layer] = self.saved.labels(layer.value)
                saved.inc(amount)
            else:
                overhead = self._overhead_by.get(layer)
                if overhead is None:
                    overhead = self._overhead_by[layer] = self.lookup_overhead.labels(layer.value)
                overhead.inc(-amount)
        self._without += entry.without_cache
        self._with += entry.with_cache

    def snapshot(self) -> dict[str, float]:
        return {"without_cache_usd": self._without, "with_cache_usd": self._with}
