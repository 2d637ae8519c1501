"""Finding lexicon phrases and patterns in normalised text.

All literal phrases of one kind are compiled into a single alternation (longest first,
so each position yields its longest phrase); regex patterns run one by one. Latin phrases
must not touch other letters ("os" never matches inside "cost"); one- and two-character
Chinese phrases must sit on jieba word boundaries.
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: The regex parser of the standard library (no public API, no type stubs): reads which
#: characters a pattern can start with.
sre_parser: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")

_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Hit:
    """One phrase or pattern found in the text."""

    label: str
    start: int
    end: int
    text: str

    def inside(self, start: int, end: int) -> bool:
        return start <= self.start and self.end <= end

    def overlaps(self, other: Hit) -> bool:
        return self.start < other.end and other.start < self.end


#: English inflections a phrase's last word may carry ("repair" in "repaired", "return"
#: in "returns"): a fact of the language, not a list of sentences.
_INFLECTIONS = ("ing", "ed", "es", "s", "d")


def _inflected(text: str, end: int) -> bool:
    for suffix in _INFLECTIONS:
        if text.startswith(suffix, end):
            after = text[end + len(suffix) : end + len(suffix) + 1]
            if not (after.isascii() and after.isalpha()):
                return True
    return False


def _clear_edges(text: str, start: int, end: int) -> bool:
    """A Latin phrase must not touch other letters (an English inflection of its last word
    aside), a number must not touch digits."""
    first, last = text[start], text[end - 1]
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if first.isascii() and first.isalpha() and before.isascii() and before.isalpha():
        return False
    if (
        last.isascii()
        and last.isalpha()
        and after.isascii()
        and after.isalpha()
        and not (end - start >= 4 and _inflected(text, end))
    ):
        return False
    if first.isdigit() and (before.isdigit() or before == "."):
        return False
    return not (last.isdigit() and (after.isdigit() or after == "."))


def _needs_word_boundary(phrase: str) -> bool:
    return len(phrase) <= 2 and all(_CJK.match(ch) for ch in phrase)


class PhraseSet:
    """Labelled literal phrases plus labelled regex patterns."""

    __slots__ = ("_labels", "_led", "_literal", "_patterns", "_short_cjk")

    def __init__(
        self,
        phrases: Iterable[tuple[str, str]],
        patterns: Iterable[tuple[str, str]] = (),
        *,
        scan_led_patterns_alone: bool = False,
    ) -> None:
        """With ``scan_led_patterns_alone``, a pattern whose first character can only be
        one of a known set runs on its own (the regex engine then skips ahead to those
        characters, which an alternation of many patterns cannot) and not at all when
        the text has none of them; the rest share one alternation per label. Hits of
        one label may then overlap: for callers that only ask whether a label occurs."""
        labels: dict[str, list[str]] = {}
        for phrase, label in phrases:
            key = phrase.lower().strip()
            if key and label not in labels.setdefault(key, []):
                labels[key].append(label)
        self._labels = {k: tuple(v) for k, v in labels.items()}
        ordered = sorted(self._labels, key=lambda p: (-len(p), p))
        # Plain literals, longest first; edge checks happen in Python so that the regex
        # engine can use its fast first-character scan.
        self._literal = re.compile("|".join(re.escape(p) for p in ordered)) if ordered else None
        self._short_cjk = frozenset(p for p in ordered if _needs_word_boundary(p))
        # One alternation per label: fewer scans; overlaps within a label do not matter.
        grouped: dict[str, list[str]] = {}
        led: list[tuple[re.Pattern[str], frozenset[str], str]] = []
        for pattern, label in patterns:
            first = first_characters(pattern) if scan_led_patterns_alone else None
            if first is not None:
                led.append((re.compile(pattern), first, label))
            else:
                grouped.setdefault(label, []).append(pattern)
        self._led = tuple(led)
        self._patterns = tuple(
            (re.compile("|".join(f"(?:{p})" for p in group)), label)
            for label, group in grouped.items()
        )

    def find(self, text: str, boundaries: frozenset[int]) -> list[Hit]:
        hits: list[Hit] = []
        literal = self._literal
        if literal is not None:
            position = 0
            while True:
                match = literal.search(text, position)
                if match is None:
                    break
                phrase = match.group(0)
                start, end = match.span()
                if not _clear_edges(text, start, end) or (
                    phrase in self._short_cjk and not _on_word(phrase, start, end, boundaries)
                ):
                    position = start + 1
                    continue
                hits.extend(Hit(label, start, end, phrase) for label in self._labels[phrase])
                position = end
        for pattern, label in self._patterns:
            hits.extend(
                Hit(label, m.start(), m.end(), m.group(0))
                for m in pattern.finditer(text)
                if m.end() > m.start()
            )
        if self._led:
            present = frozenset(text)
            for compiled, first, label in self._led:
                if present.isdisjoint(first):
                    continue
                hits.extend(
                    Hit(label, m.start(), m.end(), m.group(0))
                    for m in compiled.finditer(text)
                    if m.end() > m.start()
                )
        return hits


#: Character ranges wider than this are not expanded into a first-character set.
_MAX_RANGE = 512


def first_characters(pattern: str) -> frozenset[str] | None:
    """The characters a match of ``pattern`` can start with, when the pattern says so
    (a literal, a class of literals or short ranges, or a group or alternation of
    such, after zero-width assertions); ``None`` when any character might start it or a
    match might be empty."""
    try:
        parsed = sre_parser.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    found = _first_of(list(parsed))
    return frozenset(chr(c) for c in found) if found else None


def _first_of(items: list[tuple[Any, Any]]) -> set[int] | None:
    c = sre_constants
    for op, av in items:
        if op is c.LITERAL:
            return {av}
        if op is c.IN:
            out: set[int] = set()
            for item_op, item_av in av:
                if item_op is c.LITERAL:
                    out.add(item_av)
                elif item_op is c.RANGE and item_av[1] - item_av[0] <= _MAX_RANGE:
                    out.update(range(item_av[0], item_av[1] + 1))
                else:
                    return None
            return out
        if op is c.SUBPATTERN:
            if av[1] & re.IGNORECASE:
                return None
            return _first_of(list(av[-1]))
        if op is c.BRANCH:
            out = set()
            for alternative in av[1]:
                first = _first_of(list(alternative))
                if first is None:
                    return None
                out |= first
            return out
        if op is c.MAX_REPEAT or op is c.MIN_REPEAT:
            if av[0] < 1:
                return None
            return _first_of(list(av[2]))
        if op is c.AT or op is c.ASSERT or op is c.ASSERT_NOT:
            continue  # zero-width: the match starts with what follows
        return None
    return None


def _on_word(phrase: str, start: int, end: int, boundaries: frozenset[int]) -> bool:
    # One character must be a word of its own (比, not the 比 of 比亚迪); two may also
    # begin a longer word (分期 in 分期付款) but not sit inside one (续航 in 长续航).
    if len(phrase) == 1:
        return start in boundaries and end in boundaries
    return start in boundaries


def strip_inside(hits: Sequence[Hit], spans: Sequence[tuple[int, int]]) -> list[Hit]:
    """Hits not lying wholly inside any of ``spans`` (O((h + s) log s))."""
    if not spans:
        return list(hits)
    ordered = sorted(spans)
    starts = [s for s, _ in ordered]
    reach: list[int] = []  # furthest end among the spans starting at or before each one
    furthest = -1
    for _, end in ordered:
        furthest = max(furthest, end)
        reach.append(furthest)
    kept = []
    for hit in hits:
        index = bisect_right(starts, hit.start) - 1
        if index < 0 or reach[index] < hit.end:
            kept.append(hit)
    return kept


def outermost(hits: Sequence[Hit]) -> list[Hit]:
    """Drop hits lying inside a strictly longer hit ("how much" inside "how much storage").

    A sweep by start (longest first): a hit is inside a longer one exactly when an
    earlier, different span reaches at least as far. O(h log h).
    """
    order = sorted(range(len(hits)), key=lambda i: (hits[i].start, -hits[i].end))
    inside: set[int] = set()
    furthest = -1
    position = 0
    while position < len(order):
        span = (hits[order[position]].start, hits[order[position]].end)
        group_end = position
        while (
            group_end < len(order)
            and (
                hits[order[group_end]].start,
                hits[order[group_end]].end,
            )
            == span
        ):
            group_end += 1
        if furthest >= span[1]:
            inside.update(order[position:group_end])
        furthest = max(furthest, span[1])
        position = group_end
    return [h for i, h in enumerate(hits) if i not in inside]
