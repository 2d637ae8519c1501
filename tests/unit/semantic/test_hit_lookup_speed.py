"""Hits looked up by position instead of scanned for every other hit (a long question
holds thousands): each lookup returns what the pairwise scan it replaced returns, on
random hit lists."""

from __future__ import annotations

import random

from services.core.semantic.constraints import _HitEnds
from services.core.semantic.extractor import (
    _not_starting_inside,
    _without_cut_cues,
    _without_value_nouns,
)
from services.core.semantic.lexicon import UNIT_VALUE_MARK, parse_label
from services.core.semantic.phrases import Hit

LABELS = ("price", "storage", "weight", f"{UNIT_VALUE_MARK}weight", "storage=256GB", "#price")
TEXT = "iphone 15 256g 的 storage of price 多少钱 weight 171 g " * 2


def _random_hits(rng: random.Random, count: int) -> list[Hit]:
    hits = []
    for _ in range(count):
        start = rng.randint(0, len(TEXT) - 10)
        end = start + rng.randint(1, 9)
        hits.append(Hit(rng.choice(LABELS), start, end, TEXT[start:end]))
    return hits


def test_latest_end_equals_the_scan() -> None:
    rng = random.Random(3)
    for _ in range(300):
        hits = _random_hits(rng, rng.randint(0, 12))
        ends = _HitEnds(hits)
        for hit in hits:
            after = hit.start - rng.randint(0, 20)
            scanned = after
            for other in hits:
                if other is not hit and scanned < other.end <= hit.start:
                    scanned = other.end
            found = ends.latest_in(after, hit.start, hit)
            assert (found if found is not None else after) == scanned


def test_cues_starting_inside_values_equal_the_scan() -> None:
    rng = random.Random(4)
    for _ in range(300):
        hits = _random_hits(rng, rng.randint(0, 12))
        spans = [(h.start, h.end, rng.choice((None, "price"))) for h in _random_hits(rng, 5)]
        expected = [
            h
            for h in hits
            if not any(
                s < h.start < e < h.end and parse_label(h.label).name != topic
                for s, e, topic in spans
            )
        ]
        assert _not_starting_inside(hits, spans) == expected


def test_cut_cues_equal_the_scan() -> None:
    rng = random.Random(5)
    for _ in range(300):
        hits = _random_hits(rng, rng.randint(0, 14))
        units = [h for h in hits if parse_label(h.label).value == UNIT_VALUE_MARK]
        expected = [
            h
            for h in hits
            if not any(
                h.start < u.start < h.end <= u.end
                and parse_label(u.label).name != parse_label(h.label).name
                for u in units
            )
        ]
        assert _without_cut_cues(hits) == (expected if units else hits)


def test_value_nouns_equal_the_scan() -> None:
    rng = random.Random(6)
    gap = frozenset(" 的of")
    for _ in range(300):
        hits = _random_hits(rng, rng.randint(0, 10))
        values = _random_hits(rng, rng.randint(0, 6))

        def beside(hit: Hit, values: list[Hit] = values) -> bool:
            for value in values:
                if parse_label(value.label).name != parse_label(hit.label).name:
                    continue
                if value.end <= hit.start:
                    between = TEXT[value.end : hit.start]
                elif hit.end <= value.start:
                    between = TEXT[hit.end : value.start]
                else:
                    continue
                if len(between) <= 4 and all(ch in gap for ch in between):
                    return True
            return False

        nouns = [h for h in hits if beside(h)]
        rest = [h for h in hits if h not in nouns]
        names = {parse_label(h.label).name for h in rest}
        others = names - {parse_label(h.label).name for h in nouns}
        expected = rest if nouns and others else list(hits)
        assert _without_value_nouns(hits, values, TEXT) == expected
