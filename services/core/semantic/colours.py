"""Colours a product is not sold in.

A colour named right beside a product's name ("iPhone 15 紫色", "a purple iPhone 15")
picks a variant; when none of the colours the catalog lists for that product has that
hue, the question is about a variant the catalog does not describe. Hues and the words
for them are the lexicon's ``colour_hues`` (general facts of the languages); which hues a
product has comes from its own ``colors`` spec, read with the same words (南糯紫 Purple is
purple), so a listed colour is never ruled out. A question that asks the colours
themselves ("有紫色吗") is left to the attribute it asks. Words that hold a hue's
character but name no hue (the lexicon's ``hueless_words``: 金属 is metal, so 钛金属 is not
gold) are left out of a product's colours before they are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["ListedColours"]

#: What may stand between a name and its colour: a space, 的, an edition word.
_BESIDE = re.compile(r"[\s的版款色]*")
#: How far a colour may sit from the name, in characters.
_REACH = 4


def _hue_pattern(forms: Iterable[str], *, spoken: bool) -> re.Pattern[str]:
    """A hue's words: Latin ones as whole words; Chinese ones as written, or, said of a
    product (``spoken``), only with 色 after them (紫色), since a lone 紫 is part of names."""
    latin = [re.escape(f.lower()) for f in forms if f.isascii()]
    chinese = [re.escape(f) for f in forms if not f.isascii()]
    parts = []
    if latin:
        parts.append(rf"(?<![a-z])(?:{'|'.join(latin)})(?![a-z])")
    if chinese:
        parts.append(f"(?:{'|'.join(chinese)})" + ("色" if spoken else ""))
    return re.compile("|".join(parts) if parts else r"(?!)")


class ListedColours:
    """product id → the hues its listed colours have; a hue named beside its name that
    none of them has is a colour it is not sold in."""

    def __init__(
        self,
        hues: Mapping[str, Sequence[str]],
        specs: Mapping[str, Mapping[str, Any]],
        hueless_words: Iterable[str] = (),
    ) -> None:
        listed = {hue: _hue_pattern(forms, spoken=False) for hue, forms in hues.items()}
        self._spoken = {hue: _hue_pattern(forms, spoken=True) for hue, forms in hues.items()}
        self._hues: dict[str, frozenset[str]] = {}
        for product_id, product_specs in specs.items():
            colours = product_specs.get("colors")
            values = colours.get("value") if isinstance(colours, Mapping) else None
            if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                continue
            text = " ".join(str(v) for v in values).lower()
            for word in hueless_words:
                text = text.replace(word.lower(), " ")
            self._hues[product_id] = frozenset(h for h, p in listed.items() if p.search(text))

    def unlisted(
        self,
        product_id: str | None,
        norm: str,
        mentions: Callable[[], Sequence[tuple[int, int]]],
    ) -> str | None:
        """The hue named right beside a mention of ``product_id`` (``mentions``: its spans
        in ``norm``, asked only when a hue it lacks is named at all) that the product is
        not sold in, or None."""
        has = self._hues.get(product_id or "")
        if has is None:
            return None
        named = [
            (hue, match.span())
            for hue, pattern in self._spoken.items()
            if hue not in has
            for match in pattern.finditer(norm)
        ]
        if not named:
            return None
        spans = mentions()
        for hue, colour in named:
            if any(self._beside(norm, colour, span) for span in spans):
                return hue
        return None

    @staticmethod
    def _beside(norm: str, colour: tuple[int, int], mention: tuple[int, int]) -> bool:
        if mention[1] <= colour[0]:
            gap = norm[mention[1] : colour[0]]
        elif colour[1] <= mention[0]:
            gap = norm[colour[1] : mention[0]]
        else:
            return False
        return len(gap) <= _REACH and _BESIDE.fullmatch(gap) is not None
