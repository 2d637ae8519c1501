"""Variants a catalog note rules out.

A product's catalog ``note`` may say which variant of it the catalog describes ("USB-C
charging case version", "GPS, aluminium case"). Variants of one kind exclude each other
(a charging case has one connector, a watch case one material), so a question naming
another variant of that kind ("the Lightning version", "stainless steel cellular") asks
about a product the catalog does not describe: its figures may differ, and no answer of
the listed variant may be served for it. The kinds and their variants are the lexicon's
``variant_families`` (general facts of the product domain, not of one catalog); the
catalog's notes say which variant each product is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["NoteVariants"]


def _form_pattern(form: str) -> str:
    """A surface form as a pattern: Latin forms stand as whole words, spaces and hyphens
    inside them match either (usb-c, usb c); Chinese forms match as written."""
    parts = [re.escape(p) for p in re.split(r"[\s\-]+", form.strip().lower()) if p]
    body = r"[\s\-]?".join(parts)
    if form.isascii():
        return rf"(?<![a-z0-9]){body}(?![a-z0-9])"
    return body


@dataclass(frozen=True, slots=True)
class _Family:
    name: str
    #: One compiled pattern per variant, matching any of its surface forms.
    variants: tuple[re.Pattern[str], ...]


class NoteVariants:
    """product id → for each variant kind its note names, the variants it rules out."""

    def __init__(
        self,
        families: Mapping[str, Sequence[Sequence[str]]],
        notes: Mapping[str, str],
    ) -> None:
        compiled = [
            _Family(
                name,
                tuple(
                    re.compile("|".join(_form_pattern(f) for f in forms))
                    for forms in variants
                    if forms
                ),
            )
            for name, variants in families.items()
        ]
        self._excluded: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {}
        self._described: dict[str, tuple[re.Pattern[str], ...]] = {}
        for product_id, note in notes.items():
            text = note.lower()
            excluded: list[tuple[str, re.Pattern[str]]] = []
            described: list[re.Pattern[str]] = []
            for family in compiled:
                named = [i for i, v in enumerate(family.variants) if v.search(text)]
                if len(named) != 1:
                    continue  # the note names no variant of this kind, or several
                described.append(family.variants[named[0]])
                excluded.extend(
                    (family.name, v) for i, v in enumerate(family.variants) if i != named[0]
                )
            if excluded:
                self._excluded[product_id] = tuple(excluded)
            if described:
                self._described[product_id] = tuple(described)

    def described_spans(self, product_id: str | None, norm: str) -> list[tuple[int, int]]:
        """Where ``norm`` names a variant the product's note says the catalog describes
        ("series 9 gps": the GPS model listed): words of that product, understood."""
        if product_id is None:
            return []
        return [m.span() for p in self._described.get(product_id, ()) for m in p.finditer(norm)]

    def ruled_out(self, product_id: str | None, norm: str) -> str | None:
        """The kind of variant ``norm`` (a normalised question) names that the product's
        note rules out, or None."""
        if product_id is None:
            return None
        for family, pattern in self._excluded.get(product_id, ()):
            if pattern.search(norm):
                return family
        return None
