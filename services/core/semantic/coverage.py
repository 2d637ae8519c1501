"""Which catalog products can never get a fingerprint (``cachecoh catalog check``).

Static checks on the typed catalog and attribute vocabulary (a category no attribute
applies to, a product without names, an attribute that applies to no product, a spec
varying by a key the vocabulary does not define) and a probe: for every product, questions
made of each of its names and each applicable attribute's listed synonyms are decided by
the extractor; a product none of whose probes gets its own fingerprint is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from services.core.catalog import AttributeVocabulary, Catalog
from services.core.semantic.fingerprint import Fingerprint, SemanticDecision


@dataclass(frozen=True, slots=True)
class CatalogProblem:
    where: str  # "catalog.json: $.products[3]" or "attributes.json: $.attributes.range"
    product: str | None
    problem: str


def static_problems(catalog: Catalog, attributes: AttributeVocabulary) -> list[CatalogProblem]:
    problems: list[CatalogProblem] = []
    served = {c for a in attributes.attributes.values() for c in a.applies_to}
    categories = {p.category for p in catalog.products}
    for index, product in enumerate(catalog.products):
        where = f"catalog.json: $.products[{index}]"
        if product.category not in served:
            problems.append(
                CatalogProblem(
                    where,
                    product.product_id,
                    f"category {product.category!r} is in no attribute's applies_to: "
                    "no question about it can get a fingerprint",
                )
            )
        if not (product.names_zh or product.names_en):
            problems.append(CatalogProblem(where, product.product_id, "has no names"))
        for attribute, spec in product.specs.items():
            definition = attributes.attributes.get(attribute)
            if definition is None:
                problems.append(
                    CatalogProblem(
                        f"{where}.specs.{attribute}",
                        product.product_id,
                        "spec is no attribute of attributes.json: never asked for",
                    )
                )
                continue
            by = spec.get("by") if isinstance(spec, Mapping) else None
            if by is not None and by not in definition.constraints:
                problems.append(
                    CatalogProblem(
                        f"{where}.specs.{attribute}.by",
                        product.product_id,
                        f"varies by {by!r}, which attributes.json does not allow for {attribute}",
                    )
                )
    for attr_id, definition in attributes.attributes.items():
        if not definition.applies_to & (categories | {"store"}):
            problems.append(
                CatalogProblem(
                    f"attributes.json: $.attributes.{attr_id}.applies_to",
                    None,
                    "applies to no category of the catalog",
                )
            )
        if not any(definition.synonyms.values()):
            problems.append(
                CatalogProblem(
                    f"attributes.json: $.attributes.{attr_id}.synonyms", None, "has no synonyms"
                )
            )
    return problems


def probe_questions(
    catalog: Catalog, attributes: AttributeVocabulary
) -> dict[str, list[tuple[str, str]]]:
    """Per product: (question, attribute) pairs from its names and the listed synonyms."""
    out: dict[str, list[tuple[str, str]]] = {}
    for product in catalog.products:
        pairs: list[tuple[str, str]] = []
        for attr_id, definition in attributes.attributes.items():
            if product.category not in definition.applies_to:
                continue
            for language, names in (("zh", product.names_zh), ("en", product.names_en)):
                forms = definition.synonyms.get(language, ())
                for name in names:
                    for form in forms:
                        if not form.endswith(")"):  # "快充(汽车)": annotated forms
                            joiner = " " if language == "en" else ""
                            pairs.append((f"{name}{joiner}{form}", attr_id))
        out[product.product_id] = pairs
    return out


def probe_problems(
    catalog: Catalog,
    attributes: AttributeVocabulary,
    decide: Callable[[str], SemanticDecision],
) -> tuple[list[CatalogProblem], dict[str, float]]:
    """Products no probe question gets a fingerprint for, and each product's probe hit share."""
    problems: list[CatalogProblem] = []
    shares: dict[str, float] = {}
    for index, (product_id, pairs) in enumerate(probe_questions(catalog, attributes).items()):
        right = sum(
            1
            for question, attribute in pairs
            if isinstance(d := decide(question), Fingerprint)
            and d.product == product_id
            and d.attribute == attribute
        )
        shares[product_id] = round(right / len(pairs), 3) if pairs else 0.0
        if right == 0:
            problems.append(
                CatalogProblem(
                    f"catalog.json: $.products[{index}]",
                    product_id,
                    f"none of {len(pairs)} probe questions (name + attribute synonym) "
                    "gets a fingerprint",
                )
            )
    return problems, shares
