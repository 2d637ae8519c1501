"""Rival attribute phrases inside a longer one are found among the hits that can contain
them (those starting at most the longest hit's length before), not by comparing every
pair: the result equals the pairwise reference on random hit lists."""

from __future__ import annotations

import random

from services.core.semantic.attributes import _outermost_and_rivals
from services.core.semantic.lexicon import parse_label
from services.core.semantic.phrases import Hit, outermost

LABELS = ("price", "warranty", "battery_life", "~price", "#weight", "storage=256GB")


def _pairwise_reference(hits: list[Hit]) -> list[Hit]:
    outer = outermost(hits)
    kept = set(outer)
    rivals = []
    for hit in hits:
        label = parse_label(hit.label)
        if hit in kept or label.kind != "strong":
            continue
        containers = [
            o
            for o in hits
            if o is not hit
            and o.start <= hit.start
            and hit.end <= o.end
            and o.end - o.start > hit.end - hit.start
        ]
        if containers and all(
            o.start < hit.start
            and parse_label(o.label).kind == "strong"
            and parse_label(o.label).name != label.name
            for o in containers
        ):
            rivals.append(hit)
    return [*outer, *rivals]


def test_rivals_equal_the_pairwise_reference() -> None:
    rng = random.Random(7)
    for _ in range(400):
        hits = []
        for _ in range(rng.randint(0, 14)):
            start = rng.randint(0, 30)
            end = start + rng.randint(1, 9)
            hits.append(Hit(rng.choice(LABELS), start, end, "x" * (end - start)))
        assert _outermost_and_rivals(hits) == _pairwise_reference(hits)
