"""Product facts as the business system knows them (pure data, no I/O).

A spec is either a single value ``{"value": X, "unit": U, "note": N}`` or a variant
table ``{"by": KEY, "values": {V: {...}}}`` when it depends on a constraint (storage,
trim, ...). ``spec_version`` grows by one with every change to the product's row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from services.core.errors import CachecohError

#: Reserved product id for store-wide facts (policies that apply to every product).
STORE_PRODUCT_ID = "store"


@dataclass(frozen=True, slots=True)
class ProductFacts:
    """One product's facts at one spec version."""

    product_id: str
    category: str
    brand: str
    spec_version: int
    names_zh: tuple[str, ...]
    names_en: tuple[str, ...]
    specs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def display_name(self) -> str:
        return self.names_en[0] if self.names_en else self.product_id

    def variant_key(self, attribute: str) -> str | None:
        """The constraint key an attribute varies by (``price`` → ``storage``), if any."""
        spec = self.specs.get(attribute)
        if isinstance(spec, Mapping) and "by" in spec:
            return str(spec["by"])
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.product_id,
            "category": self.category,
            "brand": self.brand,
            "spec_version": self.spec_version,
            "names": {"zh": list(self.names_zh), "en": list(self.names_en)},
            "specs": _thaw(self.specs),
        }


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def product_from_dict(raw: Mapping[str, Any], *, spec_version: int | None = None) -> ProductFacts:
    """Build a frozen ``ProductFacts`` from a catalog entry (``catalog.json`` format)."""
    names = raw.get("names", {})
    return ProductFacts(
        product_id=str(raw["id"]),
        category=str(raw.get("category", "")),
        brand=str(raw.get("brand", "")),
        spec_version=int(spec_version if spec_version is not None else raw.get("spec_version", 1)),
        names_zh=tuple(names.get("zh", ())),
        names_en=tuple(names.get("en", ())),
        specs=_freeze(raw.get("specs", {})),
    )


def catalog_from_dict(raw: Mapping[str, Any]) -> tuple[ProductFacts, ...]:
    """Parse a whole ``catalog.json`` document."""
    return tuple(product_from_dict(p) for p in raw.get("products", ()))


@dataclass(frozen=True, slots=True)
class Catalog:
    """A validated ``catalog.json``: its products (frozen) and the frozen document."""

    products: tuple[ProductFacts, ...]
    document: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """A fresh, mutable copy of the document."""
        thawed: dict[str, Any] = _thaw(self.document)
        return thawed

    def product(self, product_id: str) -> ProductFacts | None:
        return next((p for p in self.products if p.product_id == product_id), None)

    @classmethod
    def from_document(cls, raw: Mapping[str, Any]) -> Catalog:
        return cls(catalog_from_dict(raw), _freeze(raw))


@dataclass(frozen=True, slots=True)
class AttributeDef:
    """One attribute of ``attributes.json``."""

    attribute_id: str
    kind: str  # "spec" | "policy"
    applies_to: frozenset[str]
    description: str
    synonyms: Mapping[str, tuple[str, ...]]
    constraints: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class AttributeVocabulary:
    """A validated ``attributes.json``: attribute definitions, constraint surface forms
    (key → value → language → forms) and the frozen document."""

    attributes: Mapping[str, AttributeDef]
    constraint_values: Mapping[str, Mapping[str, Mapping[str, tuple[str, ...]]]]
    document: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """A fresh, mutable copy of the document."""
        thawed: dict[str, Any] = _thaw(self.document)
        return thawed

    @classmethod
    def from_document(cls, raw: Mapping[str, Any]) -> AttributeVocabulary:
        attributes = {
            str(attr_id): AttributeDef(
                attribute_id=str(attr_id),
                kind=str(body.get("kind", "spec")),
                applies_to=frozenset(str(c) for c in body.get("applies_to", ())),
                description=str(body.get("description", "")),
                synonyms=MappingProxyType(
                    {str(k): tuple(str(f) for f in v) for k, v in body.get("synonyms", {}).items()}
                ),
                constraints=MappingProxyType(
                    {
                        str(k): tuple(str(f) for f in v)
                        for k, v in body.get("constraints", {}).items()
                    }
                ),
            )
            for attr_id, body in raw.get("attributes", {}).items()
        }
        frozen = _freeze(raw)
        return cls(
            MappingProxyType(attributes),
            frozen.get("constraint_values", MappingProxyType({})),
            frozen,
        )


def store_policy_facts(policies: Mapping[str, Any], *, spec_version: int = 1) -> ProductFacts:
    """The store-wide policies (``policy.json: store_policies``) as the ``store`` product,
    so policy answers have facts, a spec version and tags like any product's."""
    specs = {
        name: {"value": text} if isinstance(text, str) else text for name, text in policies.items()
    }
    return ProductFacts(
        product_id=STORE_PRODUCT_ID,
        category="store",
        brand="",
        spec_version=spec_version,
        names_zh=("本店",),
        names_en=("Store policy",),
        specs=_freeze(specs),
    )


class SpecChangeError(CachecohError, ValueError):
    """A requested spec change does not fit the product's spec shape."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


def apply_spec_changes(
    specs: Mapping[str, Any], changes: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """New specs after ``changes`` (path → new spec value) and the paths that really changed.

    ``attr`` replaces a whole attribute; ``attr.variant`` replaces one entry of a variant
    table (``{"by": ..., "values": {...}}``). Unchanged values are not reported.
    """
    new = _thaw(specs)
    changed: list[str] = []
    for path, value in changes.items():
        attribute, _, variant = path.partition(".")
        if not attribute:
            raise SpecChangeError(path, "empty attribute")
        if not variant:
            if new.get(attribute) != value:
                new[attribute] = value
                changed.append(attribute)
            continue
        table = new.get(attribute)
        if not isinstance(table, dict) or "values" not in table:
            raise SpecChangeError(path, f"{attribute} has no variants")
        if "." in variant:
            raise SpecChangeError(path, "only one variant level exists")
        if table["values"].get(variant) != value:
            table["values"][variant] = value
            changed.append(path)
    return new, tuple(changed)
