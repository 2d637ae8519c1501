"""Field → tag mapping: which cached answers a changed field makes stale.

A mapping file says, per changed field, which semantic slots and which intents it
feeds (``battery_capacity`` also feeds ``battery_life`` answers). The decision
"event → generation fields to bump" is the pure function ``plan_invalidation``;
the coherence worker only applies it.

Rules:

- A field path is ``<attribute>`` or ``<attribute>.<variant>[.<more>]``. A variant
  narrows the bump to that variant (plus summaries) only for the attribute's own
  slot, and only when it is a known constraint value of that product's spec;
  anything else bumps whole slots. Imprecision only costs extra misses.
- A field no mapping knows invalidates the whole product (``p``), unless the mapping
  set says ``reject``, in which case the event is dead-lettered. Unknown never
  means "nothing".
- Events about the reserved product ``store`` use the store-scope rules and fan out
  to every product, since each product's policy answers embed store policy.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType

from services.core.catalog import STORE_PRODUCT_ID
from services.core.errors import InvalidEvent, InvalidReason
from services.core.events import ProductSpecUpdated
from services.core.tags import ALL_VARIANTS, Tag, intent_tag, product_tag, slot_tag


class UnknownFieldRule(StrEnum):
    INVALIDATE_PRODUCT = "invalidate_product"
    REJECT = "reject"


class Scope(StrEnum):
    PRODUCT = "product"
    STORE = "store"


@dataclass(frozen=True, slots=True)
class FieldRule:
    """What one changed field feeds. ``source`` names the mapping file it came from."""

    semantic_slots: tuple[str, ...]
    intent_tags: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True)
class MappingSet:
    """All mapping files, merged and frozen."""

    product_rules: Mapping[str, FieldRule] = field(default_factory=lambda: MappingProxyType({}))
    store_rules: Mapping[str, FieldRule] = field(default_factory=lambda: MappingProxyType({}))
    unknown_field: UnknownFieldRule = UnknownFieldRule.INVALIDATE_PRODUCT

    def rules_for(self, product_id: str) -> Mapping[str, FieldRule]:
        return self.store_rules if product_id == STORE_PRODUCT_ID else self.product_rules


@dataclass(frozen=True, slots=True)
class ProductBump:
    """Generation fields to increment for one product (one Lua call)."""

    product: str
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InvalidationPlan:
    event_id: str
    bumps: tuple[ProductBump, ...]
    unknown_fields: tuple[str, ...] = ()

    @property
    def whole_product(self) -> bool:
        return any("p" in b.fields for b in self.bumps)

    @property
    def tag_count(self) -> int:
        return sum(len(b.fields) for b in self.bumps)

    def tags(self) -> list[str]:
        return [f"{b.product}/{f}" for b in self.bumps for f in b.fields]


def _split_path(path: str) -> tuple[str, str | None]:
    attribute, _, rest = path.partition(".")
    variant = rest.split(".", 1)[0] if rest else None
    return attribute, variant or None


def _tags_for_field(
    product: str,
    path: str,
    rule: FieldRule,
    known_variants: Collection[str],
) -> set[Tag]:
    attribute, variant = _split_path(path)
    tags: set[Tag] = set()
    for slot in rule.semantic_slots:
        if slot == attribute and variant is not None and variant in known_variants:
            tags.add(slot_tag(product, slot, variant))
            tags.add(slot_tag(product, slot, ALL_VARIANTS))
        else:
            tags.add(slot_tag(product, slot))
    tags.update(intent_tag(product, intent) for intent in rule.intent_tags)
    return tags


@lru_cache(maxsize=65_536)
def _fields_for(product: str, path: str, rule: FieldRule, variant_known: bool) -> tuple[str, ...]:
    """The generation fields a changed path bumps (pure, so memoized: the same products
    and paths recur on every event). ``variant_known``: the path's variant is one of the
    product's known constraint values, the only thing the spec store decides here."""
    _, variant = _split_path(path)
    known = (variant,) if variant_known and variant is not None else ()
    return tuple(t.field for t in _tags_for_field(product, path, rule, known))


def plan_invalidation(
    event: ProductSpecUpdated,
    mappings: MappingSet,
    *,
    variants: Mapping[str, Collection[str]] | None = None,
    all_products: Collection[str] = (),
) -> InvalidationPlan:
    """Compute the generation bumps for an event. Pure; raises ``InvalidEvent`` on reject.

    ``variants`` maps an attribute of the event's product to its known constraint
    values (from the spec store); ``all_products`` is the fan-out set for store events.
    """
    rules = mappings.rules_for(event.product_id)
    variants = variants or {}
    unknown: list[str] = []
    fields: set[str] = set()
    for path in event.changed_fields:
        attribute, _ = _split_path(path)
        rule = rules.get(path) or rules.get(attribute)
        if rule is None:
            unknown.append(path)
            continue
        _, variant = _split_path(path)
        known = variant is not None and variant in variants.get(attribute, ())
        fields.update(_fields_for(event.product_id, path, rule, known))
    if unknown:
        if mappings.unknown_field is UnknownFieldRule.REJECT:
            raise InvalidEvent(
                InvalidReason.UNKNOWN_FIELD,
                f"no mapping for {', '.join(unknown)}",
                "$.data.changed_fields",
            )
        fields = {product_tag(event.product_id).field}
    ordered = tuple(sorted(fields))
    targets = [event.product_id]
    if event.product_id == STORE_PRODUCT_ID:
        targets += sorted(p for p in all_products if p != STORE_PRODUCT_ID)
    return InvalidationPlan(
        event_id=event.event_id,
        bumps=tuple(ProductBump(product=p, fields=ordered) for p in targets),
        unknown_fields=tuple(unknown),
    )
