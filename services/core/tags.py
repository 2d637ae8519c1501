"""Coherence tags: what a cached answer depends on, and what an event changes.

Every tag is scoped to one product, so all of a product's generation counters live in
one Redis hash under a ``{product}`` hash tag (one cluster slot). A tag is stored as a
*field* of that hash:

==========================  =========================================================
field                       meaning
==========================  =========================================================
``p``                       the product as a whole (every answer about it carries it)
``i:<intent>``              every answer of one intent (``query_spec``, ``query_policy``)
``s:<slot>``                every answer that depends on a slot (attribute)
``s:<slot>.<variant>``      answers about one variant (``price`` for ``256GB``)
``s:<slot>.*``              answers that summarise all variants of a slot
``n:<namespace>``           general answers (no fingerprint) of one namespace
``c:<tag>``                 general answers the client tagged (``X-Cache-Tags``)
==========================  =========================================================

General answers (requests without a fingerprint: no product, no facts) live under the
tenant's pseudo-product ``general.<tenant>`` (:func:`general_product`) and carry ``p``,
``n:<namespace>`` and one ``c:<tag>`` per declared tag, so an operator purges a tenant's,
a namespace's or a client tag's general answers with the same purge-by-tag.

An answer carries ``p``, ``i:<intent>``, ``s:<slot>`` and either ``s:<slot>.<v>`` for
each constraint value it was asked with, or ``s:<slot>.*`` when it was unconstrained.
An event on ``<slot>`` bumps ``s:<slot>`` (all of them); an event on ``<slot>.<v>`` bumps
``s:<slot>.<v>`` and ``s:<slot>.*`` (that variant and the summaries), leaving answers
about other variants servable.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

PRODUCT_ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
_NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")
_PRODUCT = re.compile(PRODUCT_ID_PATTERN)
ALL_VARIANTS = "*"


class TagKind(StrEnum):
    PRODUCT = "p"
    INTENT = "i"
    SLOT = "s"
    NAMESPACE = "n"
    CLIENT = "c"


@dataclass(frozen=True, slots=True, order=True)
class Tag:
    """One dependency of a cached answer, scoped to ``product``."""

    product: str
    kind: TagKind
    name: str = ""

    def __post_init__(self) -> None:
        if not _PRODUCT.match(self.product):
            raise ValueError(f"invalid product id {self.product!r}")
        if self.kind is TagKind.PRODUCT:
            if self.name:
                raise ValueError("a product tag has no name")
        elif not self.name or any(c.isspace() for c in self.name) or "{" in self.name:
            raise ValueError(f"invalid tag name {self.name!r}")

    @property
    def field(self) -> str:
        """The field of the product's generation hash that holds this tag's counter."""
        if self.kind is TagKind.PRODUCT:
            return "p"
        return f"{self.kind.value}:{self.name}"

    def __str__(self) -> str:
        # The form used in Surrogate-Key headers and the audit log.
        return f"{self.product}/{self.field}"


def product_tag(product: str) -> Tag:
    return Tag(product, TagKind.PRODUCT)


def intent_tag(product: str, intent: str) -> Tag:
    return Tag(product, TagKind.INTENT, intent)


def slot_tag(product: str, slot: str, variant: str | None = None) -> Tag:
    return Tag(product, TagKind.SLOT, slot if variant is None else f"{slot}.{variant}")


def safe_variant(value: str) -> str:
    """A constraint value as it may appear inside a tag name (no spaces or braces)."""
    cleaned = "".join(c if _NAME.match(c) else "_" for c in value)
    return cleaned[:64] or "_"


def answer_tags(
    product: str,
    intent: str,
    slots: Iterable[str],
    constraint_values: Iterable[str] = (),
) -> frozenset[Tag]:
    """The tags an answer carries: product, intent, and each slot at variant precision."""
    variants = tuple(safe_variant(v) for v in constraint_values)
    tags = {product_tag(product), intent_tag(product, intent)}
    for slot in slots:
        tags.add(slot_tag(product, slot))
        if variants:
            tags.update(slot_tag(product, slot, v) for v in variants)
        else:
            tags.add(slot_tag(product, slot, ALL_VARIANTS))
    return frozenset(tags)


GENERAL_PREFIX = "general."
CLIENT_TAG_PATTERN = _NAME


def general_product(tenant: str) -> str:
    """The pseudo-product a tenant's general answers are tagged under."""
    candidate = f"{GENERAL_PREFIX}{tenant.lower()}"
    if _PRODUCT.match(candidate):
        return candidate
    return GENERAL_PREFIX + hashlib.sha256(tenant.encode()).hexdigest()[:32]


def general_tags(tenant: str, namespace: str, client_tags: Iterable[str] = ()) -> frozenset[Tag]:
    """Tags of a general answer: the tenant, its namespace and the client's own tags."""
    product = general_product(tenant)
    tags = {product_tag(product), Tag(product, TagKind.NAMESPACE, namespace)}
    tags.update(Tag(product, TagKind.CLIENT, tag) for tag in client_tags)
    return frozenset(tags)


def parse_field(product: str, field: str) -> Tag:
    """Inverse of ``Tag.field`` (used by admin purge-by-tag and the audit)."""
    if field == "p":
        return product_tag(product)
    kind, _, name = field.partition(":")
    return Tag(product, TagKind(kind), name)
