"""Constraints: which variant of an attribute the question is about.

A constraint enters the fingerprint only when the question states it and the product's
answer varies by that key (``{"by": "storage"}`` in the catalog, or a store policy with
per-variant texts such as opened/unopened returns). "256G" in a screen-size question is
dropped; "256G" in a price question is kept. When the answer varies by a key and the
question hints at a variant we cannot read ("大号", "gaming", "顶配"), or names a value the
product is not sold in, the extractor returns no fingerprint rather than serving the
unconstrained answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.core.semantic.lexicon import SlotLexicon, parse_label
from services.core.semantic.phrases import Hit, PhraseSet, outermost


@dataclass(frozen=True, slots=True)
class ConstraintReading:
    """Constraint values found in a question, before the attribute is known."""

    hits: tuple[Hit, ...]
    values: Mapping[str, frozenset[str]]

    def conflicting_keys(self) -> list[str]:
        return sorted(k for k, vs in self.values.items() if len(vs) > 1)

    def spans(self) -> list[tuple[int, int]]:
        return [(h.start, h.end) for h in self.hits]


@dataclass(frozen=True, slots=True)
class ConstraintChoice:
    constraints: tuple[tuple[str, str], ...]
    problem: str | None = None
    #: Keys the answer varies by that the question left open (an unconstrained class).
    open_keys: tuple[str, ...] = ()


#: How far before a constraint value a negation may stand ("charge without a cable").
_NEGATION_WINDOW = 12
_CLAUSE_MARKS = (",", "，", ".", "。", "?", "？", "!", "！", ";", "；")


class ConstraintResolver:
    __slots__ = ("_hints", "_negations", "_phrases", "_specs", "_store_variants")

    def __init__(self, lexicon: SlotLexicon) -> None:
        self._negations = PhraseSet((n, "not") for n in lexicon.negations)
        self._phrases = PhraseSet(lexicon.constraint_phrases, lexicon.constraint_patterns)
        by_key: dict[str, list[tuple[str, str]]] = {}
        for pattern, key in lexicon.constraint_hints:
            by_key.setdefault(key, []).append((pattern, key))
        self._hints = {key: PhraseSet((), patterns) for key, patterns in by_key.items()}
        self._specs = lexicon.attributes
        self._store_variants = lexicon.store_variants

    def read(
        self, text: str, boundaries: frozenset[int], category: str | None
    ) -> ConstraintReading:
        hits = [
            h
            for h in self._phrases.find(text, boundaries)
            if parse_label(h.label).applies_to(category)
        ]
        # The longest reading wins: "长续航全驱版" over the "长续航" inside it.
        hits = outermost(hits)
        values: dict[str, set[str]] = {}
        for hit in hits:
            label = parse_label(hit.label)
            values.setdefault(label.name, set()).add(label.value)
        return ConstraintReading(tuple(hits), {k: frozenset(v) for k, v in values.items()})

    def choose(
        self,
        reading: ConstraintReading,
        attribute: str,
        product_specs: Mapping[str, Any] | None,
        text: str,
        boundaries: frozenset[int],
    ) -> ConstraintChoice:
        varying = self.varying(attribute, product_specs)
        chosen: list[tuple[str, str]] = []
        open_keys: list[str] = []
        for key, offered in sorted(varying.items()):
            stated = reading.values.get(key)
            if stated:
                (value,) = stated  # conflicting values were a bypass already
                if self._negated(key, reading, text, boundaries):
                    # "without a cable": the value named is the one *not* meant.
                    return ConstraintChoice((), f"{key} is negated")
                if value not in offered:
                    return ConstraintChoice((), f"{key}={value} is not offered for this product")
                chosen.append((key, value))
            elif self._hinted(key, text, boundaries):
                return ConstraintChoice((), f"hints at a {key} we cannot read")
            else:
                open_keys.append(key)
        return ConstraintChoice(tuple(chosen), open_keys=tuple(open_keys))

    def varying(
        self, attribute: str, product_specs: Mapping[str, Any] | None
    ) -> dict[str, frozenset[str]]:
        """Constraint key → the values the answer differs by, for this product."""
        spec = self._specs[attribute]
        varying: dict[str, frozenset[str]] = {}
        product_spec = product_specs.get(attribute) if product_specs is not None else None
        if isinstance(product_spec, Mapping) and "by" in product_spec:
            varying[str(product_spec["by"])] = frozenset(product_spec.get("values", {}))
        if spec.kind == "policy":
            # Store policies with per-variant texts (opened / unopened returns) vary too.
            store = self._store_variants.get(attribute, frozenset())
            for key, values in spec.constraint_values.items():
                if key not in varying and values & store:
                    varying[key] = values & store
        return varying

    def _negated(
        self, key: str, reading: ConstraintReading, text: str, boundaries: frozenset[int]
    ) -> bool:
        for hit in reading.hits:
            if parse_label(hit.label).name != key:
                continue
            window_start = max(0, hit.start - _NEGATION_WINDOW)
            before = text[window_start : hit.start]
            clause = max(before.rfind(p) for p in _CLAUSE_MARKS)
            before = before[clause + 1 :]
            offset = hit.start - len(before)
            shifted = frozenset(b - offset for b in boundaries if offset <= b <= hit.start)
            if self._negations.find(before, shifted | {0, len(before)}):
                return True
        return False

    def _hinted(self, key: str, text: str, boundaries: frozenset[int]) -> bool:
        hints = self._hints.get(key)
        return hints is not None and bool(hints.find(text, boundaries))
