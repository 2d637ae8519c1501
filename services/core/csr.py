"""Cost-savings rate (CSR) per cache layer (pure arithmetic, no I/O).

For every answered request we compare what it cost with the caches against what the
same answer would have cost without any cache (every token paid at the model's price):

``CSR = Σ(cost without cache − cost with cache) / Σ(cost without cache)``

- a request- or semantic-layer **hit** costs one lookup per layer consulted instead of
  the whole upstream call;
- a **miss** pays the upstream call plus the lookups (a small negative saving);
- a **bypass** pays the upstream call plus the request-layer lookup it made first;
- the **prefix/KV** layer saves the difference between the input price and the cached
  input price on every prompt token the upstream served from its prefix cache
  (``usage.prompt_tokens_details.cached_tokens``).

Savings are attributed to the layer that produced them, so each layer's share of the
total saving can be shown; lookup overheads are charged to the layers that did them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class CostLayer(StrEnum):
    REQUEST = "request"
    SEMANTIC = "semantic"
    PREFIX = "prefix"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens."""

    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float

    def call_cost(
        self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0
    ) -> float:
        uncached = max(0, prompt_tokens - cached_tokens)
        return (
            uncached * self.input_per_mtok
            + cached_tokens * self.cached_input_per_mtok
            + completion_tokens * self.output_per_mtok
        ) / 1_000_000

    def full_cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return self.call_cost(prompt_tokens, completion_tokens, 0)


@dataclass(frozen=True, slots=True)
class PriceTable:
    models: Mapping[str, ModelPrice]
    default_model: str
    lookup_cost: float  # USD per cache lookup (Redis round trip, amortised infrastructure)

    def price(self, model: str) -> ModelPrice:
        return self.models.get(model) or self.models[self.default_model]


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class CostEntry:
    """One request's cost without and with the caches, and who saved what."""

    without_cache: float
    with_cache: float
    saved_by: Mapping[CostLayer, float]


def cost_of_hit(
    prices: PriceTable, model: str, usage: Usage, layer: CostLayer, lookups: int
) -> CostEntry:
    """A hit in ``layer`` after ``lookups`` lookups (1 for request, 2 for semantic)."""
    without = prices.price(model).full_cost(usage.prompt_tokens, usage.completion_tokens)
    with_cache = lookups * prices.lookup_cost
    return CostEntry(without, with_cache, {layer: without - with_cache})


def cost_of_upstream_call(
    prices: PriceTable, model: str, usage: Usage, lookups: Mapping[CostLayer, int]
) -> CostEntry:
    """A miss or a bypass: the upstream call (with its prefix-cache discount) plus lookups."""
    price = prices.price(model)
    without = price.full_cost(usage.prompt_tokens, usage.completion_tokens)
    paid = price.call_cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
    saved: dict[CostLayer, float] = {CostLayer.PREFIX: without - paid}
    for layer, count in lookups.items():
        saved[layer] = saved.get(layer, 0.0) - count * prices.lookup_cost
    return CostEntry(without, paid + sum(lookups.values()) * prices.lookup_cost, saved)


def savings_rate(without_cache: float, with_cache: float) -> float:
    """CSR over a period; 0 when nothing was spent."""
    return (without_cache - with_cache) / without_cache if without_cache > 0 else 0.0


def price_table_from_dict(raw: Mapping[str, object]) -> PriceTable:
    """Parse a validated ``prices.json`` document."""
    models_raw = raw["models"]
    assert isinstance(models_raw, Mapping)
    models = {
        str(name): ModelPrice(
            input_per_mtok=float(p["input_per_mtok"]),
            output_per_mtok=float(p["output_per_mtok"]),
            cached_input_per_mtok=float(p.get("cached_input_per_mtok", p["input_per_mtok"])),
        )
        for name, p in models_raw.items()
    }
    default = str(raw["default_model"])
    if default not in models:
        raise ValueError(f"default_model {default!r} has no price")
    return PriceTable(models, default, float(raw["lookup_cost_usd"]))  # type: ignore[arg-type]
