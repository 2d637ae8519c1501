"""Cost-savings rate arithmetic."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from services.core.csr import (
    CostLayer,
    Usage,
    cost_of_hit,
    cost_of_upstream_call,
    price_table_from_dict,
    savings_rate,
)
from services.paths import DEMO_DATA_DIR, SCHEMAS_DIR

RAW = json.loads((DEMO_DATA_DIR / "prices.json").read_text())
PRICES = price_table_from_dict(RAW)


def test_shipped_price_table_is_valid() -> None:
    schema = json.loads((SCHEMAS_DIR / "prices.schema.json").read_text())
    Draft202012Validator(schema).validate(RAW)


def test_a_hit_saves_the_whole_call_minus_lookups() -> None:
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000)
    entry = cost_of_hit(PRICES, "cachecoh-offline", usage, CostLayer.SEMANTIC, lookups=2)
    assert entry.without_cache == pytest.approx(0.75)
    assert entry.with_cache == pytest.approx(2 * PRICES.lookup_cost)
    assert entry.saved_by[CostLayer.SEMANTIC] == pytest.approx(0.75 - 2 * PRICES.lookup_cost)


def test_prefix_savings_come_from_cached_prompt_tokens_and_lookups_cost() -> None:
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=0, cached_tokens=500_000)
    entry = cost_of_upstream_call(
        PRICES, "cachecoh-offline", usage, {CostLayer.REQUEST: 1, CostLayer.SEMANTIC: 1}
    )
    assert entry.saved_by[CostLayer.PREFIX] == pytest.approx(0.5 * (0.15 - 0.015))
    assert entry.saved_by[CostLayer.REQUEST] == pytest.approx(-PRICES.lookup_cost)
    total = sum(entry.saved_by.values())
    assert total == pytest.approx(entry.without_cache - entry.with_cache)


def test_rate_over_a_period() -> None:
    assert savings_rate(10.0, 2.5) == 0.75
    assert savings_rate(0.0, 0.0) == 0.0


def test_unknown_model_uses_the_default_price() -> None:
    assert PRICES.price("nope") == PRICES.price("cachecoh-offline")
