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

#: What may stand between a name and its colour: a space, 的, an edition word; after the
#: name, also the modifier a Chinese colour word opens with (天青色, 深海蓝色), which is no
#: function character (有紫色吗 asks, 是紫色吗 confirms).
_BESIDE = re.compile(r"[\s的版款色]*")
_BESIDE_MODIFIED = re.compile(
    r"[\s的版款色]*[^\W\d_a-z有是没不要的了吗呢和与或还也都就很太多少几这那哪啥么一个种][^\W\d_a-z的了吗呢]?"
)
#: "the iPhone in gold": the colour a product comes in, after its name.
_IN_COLOUR = re.compile(r"\s+in\s+(?:the\s+)?(?:colou?r\s+)?")
#: A catalog colour built as a modifier and a hue character (钛灰, 雅川青): the modifier,
#: which names the product's colours with other hues too (钛蓝 is a blue in that line).
_STEM_AND_HUE = re.compile(r"([\u4e00-\u9fff]{1,2}?)([\u4e00-\u9fff])色?")
#: How far a colour may sit from the name, in characters.
_REACH = 4


def _hue_pattern(forms: Iterable[str], *, spoken: bool) -> re.Pattern[str]:
    """A hue's words: Latin ones as whole words; Chinese ones as written, or, said of a
    product (``spoken``), a hue's character only with 色 after it (紫色), since a lone 紫
    is part of names; a colour word of several characters (土豪金) as written."""
    latin = [re.escape(f.lower()) for f in forms if f.isascii()]
    chinese = [re.escape(f) for f in forms if not f.isascii()]
    parts = []
    if latin:
        parts.append(rf"(?<![a-z])(?:{'|'.join(latin)})(?![a-z])")
    single = [c for c in chinese if len(c) == 1]
    words = [c for c in chinese if len(c) > 1]
    if single:
        parts.append(f"(?:{'|'.join(single)})" + ("色" if spoken else ""))
    if words:
        # A colour word of its own (土豪金, 咖啡): no part of a name, 色 or not.
        parts.append(f"(?:{'|'.join(words)})")
    return re.compile("|".join(parts) if parts else r"(?!)")


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(map(re.escape, words))


def _stems(values: Sequence[Any], hue_characters: Mapping[str, Sequence[str]]) -> list[str]:
    """The modifiers of a product's Chinese colour names built as a modifier and a hue
    character (钛灰, 钛黑 → 钛)."""
    characters = {c for chars in hue_characters.values() for c in chars}
    stems = set()
    for value in values:
        chinese = str(value).split()[0] if str(value).split() else ""
        match = _STEM_AND_HUE.fullmatch(chinese)
        if match is not None and match.group(2) in characters:
            stems.add(match.group(1))
    return sorted(stems, key=len, reverse=True)


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
        self._stemmed: dict[str, dict[str, re.Pattern[str]]] = {}
        hue_characters = {
            hue: [f for f in forms if len(f) == 1 and not f.isascii()]
            for hue, forms in hues.items()
        }
        hue_characters = {hue: chars for hue, chars in hue_characters.items() if chars}
        for product_id, product_specs in specs.items():
            colours = product_specs.get("colors")
            values = colours.get("value") if isinstance(colours, Mapping) else None
            if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                continue
            text = " ".join(str(v) for v in values).lower()
            for word in hueless_words:
                text = text.replace(word.lower(), " ")
            self._hues[product_id] = frozenset(h for h, p in listed.items() if p.search(text))
            stems = _stems(values, hue_characters)
            if stems:
                self._stemmed[product_id] = {
                    hue: re.compile(f"(?:{_alternatives(stems)})(?:{_alternatives(chars)})")
                    for hue, chars in hue_characters.items()
                }

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
        stemmed = self._stemmed.get(product_id or "", {})
        named = [
            (hue, match.span())
            for hue, pattern in (*self._spoken.items(), *stemmed.items())
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
            gap, beside = norm[mention[1] : colour[0]], _BESIDE_MODIFIED
        elif colour[1] <= mention[0]:
            gap, beside = norm[colour[1] : mention[0]], _BESIDE
        else:
            return False
        if beside is _BESIDE_MODIFIED and _IN_COLOUR.fullmatch(gap) is not None:
            return True
        return len(gap) <= _REACH and (
            _BESIDE.fullmatch(gap) is not None or beside.fullmatch(gap) is not None
        )
