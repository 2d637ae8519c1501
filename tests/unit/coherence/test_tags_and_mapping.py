"""Pure core: tag derivation and event → bump planning."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from services.adapters.contract_files import load_mappings
from services.core.errors import InvalidEvent, InvalidReason
from services.core.events import new_event
from services.core.mapping import (
    FieldRule,
    MappingSet,
    UnknownFieldRule,
    plan_invalidation,
)
from services.core.tags import Tag, TagKind, answer_tags, parse_field
from services.paths import DEMO_DATA_DIR, MAPPINGS_DIR

ATTRIBUTES = json.loads((DEMO_DATA_DIR / "attributes.json").read_text())["attributes"]
SHIPPED = load_mappings(
    MAPPINGS_DIR, known_slots=set(ATTRIBUTES), known_intents={"query_spec", "query_policy"}
)


def test_answer_tags_cover_product_intent_slot_and_variant() -> None:
    fields = {t.field for t in answer_tags("iphone_15", "query_spec", ["price"], ["256GB"])}
    assert fields == {"p", "i:query_spec", "s:price", "s:price.256GB"}
    unconstrained = {t.field for t in answer_tags("iphone_15", "query_spec", ["price"])}
    assert unconstrained == {"p", "i:query_spec", "s:price", "s:price.*"}


@pytest.mark.parametrize("bad", ["Bad Id", "{x}", "", "a" * 65])
def test_tags_refuse_product_ids_that_could_break_hash_tags(bad: str) -> None:
    with pytest.raises(ValueError):
        Tag(bad, TagKind.PRODUCT)


def test_fields_round_trip() -> None:
    for tag in answer_tags("byd_han", "query_spec", ["range"], ["long_range"]):
        assert parse_field(tag.product, tag.field) == tag


def _plan(product: str, fields: list[str], **kwargs: object) -> set[str]:
    event = new_event(product, fields, 2, source="t")
    plan = plan_invalidation(event, SHIPPED, **kwargs)  # type: ignore[arg-type]
    return {f"{b.product}/{f}" for b in plan.bumps for f in b.fields}


def test_a_field_feeds_every_slot_derived_from_it() -> None:
    assert _plan("tesla_model_y", ["battery_capacity"]) == {
        "tesla_model_y/s:battery_capacity",
        "tesla_model_y/s:battery_life",
        "tesla_model_y/s:range",
    }


def test_known_variant_narrows_only_its_own_slot() -> None:
    variants = {"price": {"128GB", "256GB"}}
    assert _plan("iphone_15", ["price.256GB"], variants=variants) == {
        "iphone_15/s:price.256GB",
        "iphone_15/s:price.*",
    }
    # an unknown variant (not a constraint value of this product) bumps the whole slot
    assert _plan("iphone_15", ["price.note"], variants=variants) == {"iphone_15/s:price"}


def test_unknown_field_invalidates_the_whole_product() -> None:
    event = new_event("iphone_15", ["battery_life", "mystery"], 2, source="t")
    plan = plan_invalidation(event, SHIPPED)
    assert [b.fields for b in plan.bumps] == [("p",)]
    assert plan.unknown_fields == ("mystery",)
    assert plan.whole_product


def test_unknown_field_can_be_configured_to_reject() -> None:
    strict = MappingSet(
        product_rules=MappingProxyType({"weight": FieldRule(("weight",), (), "x.json")}),
        unknown_field=UnknownFieldRule.REJECT,
    )
    with pytest.raises(InvalidEvent) as err:
        plan_invalidation(new_event("iphone_15", ["mystery"], 2, source="t"), strict)
    assert err.value.reason is InvalidReason.UNKNOWN_FIELD


def test_store_policy_events_fan_out_to_every_product() -> None:
    planned = _plan("store", ["return_policy"], all_products=["iphone_15", "byd_han"])
    assert planned == {
        "store/s:return_policy",
        "iphone_15/s:return_policy",
        "byd_han/s:return_policy",
    }


def test_name_changes_invalidate_every_answer_of_the_product_intents() -> None:
    assert _plan("iphone_15", ["names"]) == {"iphone_15/i:query_spec", "iphone_15/i:query_policy"}


def test_every_vocabulary_attribute_is_mapped() -> None:
    mapped = set(SHIPPED.product_rules) | set(SHIPPED.store_rules)
    assert set(ATTRIBUTES) <= mapped
    for attribute, spec in ATTRIBUTES.items():
        if spec["kind"] == "spec":
            assert attribute in SHIPPED.product_rules, attribute
