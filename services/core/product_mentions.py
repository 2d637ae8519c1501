"""Which catalog products a question names (pure): the facts a bypassed product
question is grounded with.

The semantic extractor decides *whether* a question is cacheable; a question it bypasses
(compare, recommend, predict, realtime, personal) is still about products, and the model
should see their facts. Names come from the catalog (every zh and en name), matched on a
compact form (NFKC, case-folded, no spaces), longest name first, without overlaps.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

#: More products than this in one question: grounding with the first ones only.
MAX_GROUNDED_PRODUCTS = 4


def _compact(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


class ProductNames:
    def __init__(self, names: Mapping[str, str]) -> None:
        # compact name → product id, longest names first (苹果15pro before 苹果15)
        self._names = sorted(
            ((c, p) for n, p in names.items() if len(c := _compact(n)) >= 2),
            key=lambda item: -len(item[0]),
        )

    @classmethod
    def from_catalog_json(cls, raw: Mapping[str, Any]) -> ProductNames:
        names: dict[str, str] = {}
        for product in raw.get("products", ()):
            for forms in product.get("names", {}).values():
                for name in forms:
                    names[str(name)] = str(product["id"])
        return cls(names)

    def named_in(self, text: str) -> tuple[str, ...]:
        """Product ids in order of first mention (at most ``MAX_GROUNDED_PRODUCTS``)."""
        compact = _compact(text)
        taken: list[tuple[int, int, str]] = []
        for name, product in self._names:
            start = compact.find(name)
            while start >= 0:
                end = start + len(name)
                if not any(s < end and start < e for s, e, _ in taken):
                    taken.append((start, end, product))
                start = compact.find(name, end)
        found: list[str] = []
        for _, _, product in sorted(taken):
            if product not in found:
                found.append(product)
        return tuple(found[:MAX_GROUNDED_PRODUCTS])
