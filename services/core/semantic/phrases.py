"""Finding lexicon phrases and patterns in normalised text.

All literal phrases of one kind go into one Aho-Corasick automaton (each position yields
its longest phrase); regex patterns run per label, and only when the text holds a string
every match of them needs. Latin phrases must not touch other letters ("os" never matches
inside "cost"); one- and two-character Chinese phrases must sit on jieba word boundaries.
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ahocorasick

#: The regex parser of the standard library (no public API, no type stubs): reads which
#: characters a pattern can start with and which strings it needs.
sre_parser: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")

_CJK = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")
#: Alternations of pattern subsets kept per group (each a few kB compiled).
_SUBSETS_KEPT = 512


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


def _glued_to_number(text: str, start: int) -> bool:
    """Whether a Latin phrase at ``start`` follows a digit with nothing between."""
    first = text[start]
    return start > 0 and first.isascii() and first.isalpha() and text[start - 1].isdigit()


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


@dataclass(frozen=True, slots=True)
class Requirement:
    """Substrings one of which every match of a pattern contains (single characters,
    longer strings, or any character ``\\d`` matches): a pattern whose requirement the
    text does not meet cannot match anywhere in it, so it need not run."""

    chars: frozenset[str]
    strings: frozenset[str]
    digit: bool = False


@dataclass(frozen=True, slots=True)
class _PatternGroup:
    """One label's patterns as one alternation, and each of them alone (by pattern id).

    Leaving out an alternative that cannot match anywhere in the text does not change
    what the alternation finds: when no alternative's requirement is met the group does
    not run, and when one alone is met that one runs alone (the regex engine can then
    skip ahead to its first characters, which an alternation cannot)."""

    label: str
    compiled: re.Pattern[str]
    alone: Mapping[int, re.Pattern[str]]
    #: Alternations of the patterns of the group some text met, by their ids.
    subsets: dict[tuple[int, ...], re.Pattern[str]] = field(default_factory=dict)

    def among(self, met: tuple[int, ...]) -> re.Pattern[str]:
        """The alternation of only the patterns ``met`` (in the group's order): the
        others cannot match, so it finds what the whole alternation finds, sooner."""
        if len(met) == 1:
            return self.alone[met[0]]
        if len(met) == len(self.alone):
            return self.compiled
        compiled = self.subsets.get(met)
        if compiled is None:
            if len(self.subsets) >= _SUBSETS_KEPT:
                self.subsets.clear()  # seldom: texts meet few distinct subsets
            compiled = re.compile("|".join(f"(?:{self.alone[i].pattern})" for i in met))
            self.subsets[met] = compiled
        return compiled


class PhraseSet:
    """Labelled literal phrases plus labelled regex patterns.

    One Aho-Corasick automaton finds, in one pass over the text, every literal phrase
    and every string some pattern requires; the longest phrase at each position then
    passes the edge checks in Python, and only the patterns whose requirement the text
    meets run."""

    __slots__ = (
        "_always",
        "_automaton",
        "_char_needs",
        "_digit_needs",
        "_first_need_ids",
        "_first_needs",
        "_group_of",
        "_groups",
        "_labels",
        "_led",
        "_led_ids",
        "_more_needs",
        "_need_chars",
        "_short_cjk",
        "_words_after_numbers",
    )

    def __init__(
        self,
        phrases: Iterable[tuple[str, str]],
        patterns: Iterable[tuple[str, str]] = (),
        *,
        scan_led_patterns_alone: bool = False,
        words_after_numbers: bool = True,
    ) -> None:
        """With ``scan_led_patterns_alone``, a pattern whose first character can only be
        one of a known set runs on its own (the regex engine then skips ahead to those
        characters, which an alternation of many patterns cannot) and not at all when
        the text has none of them; the rest share one alternation per label. Hits of
        one label may then overlap: for callers that only ask whether a label occurs.
        Without ``words_after_numbers``, a Latin phrase glued to the number before it is
        that number's unit or suffix, not the word (the atm of "5ATM", the rn of "15rn")."""
        self._words_after_numbers = words_after_numbers
        labels: dict[str, list[str]] = {}
        for phrase, label in phrases:
            key = phrase.lower().strip()
            if key and label not in labels.setdefault(key, []):
                labels[key].append(label)
        self._labels = {k: tuple(v) for k, v in labels.items()}
        self._short_cjk = frozenset(p for p in self._labels if _needs_word_boundary(p))
        # Patterns by id: one alternation per label (fewer scans; overlaps within a
        # label do not matter), led ones alone.
        grouped: dict[str, list[tuple[int, str]]] = {}
        led: dict[int, tuple[re.Pattern[str], frozenset[str], str]] = {}
        required: dict[int, tuple[Requirement, ...]] = {}
        for pattern_id, (pattern, label) in enumerate(patterns):
            required[pattern_id] = requirements(pattern)
            first = first_characters(pattern) if scan_led_patterns_alone else None
            if first is not None:
                led[pattern_id] = (re.compile(pattern), first, label)
            else:
                grouped.setdefault(label, []).append((pattern_id, pattern))
        self._led = led
        # Key sets as sets: a set's intersection with a dict walks all of the dict's keys.
        self._led_ids = frozenset(led)
        self._groups = tuple(
            _PatternGroup(
                label,
                re.compile("|".join(f"(?:{p})" for _, p in group)),
                {i: re.compile(p) for i, p in group},
            )
            for label, group in grouped.items()
        )
        self._group_of = {i: g for g, group in enumerate(self._groups) for i in group.alone}
        self._always = frozenset(i for i, r in required.items() if not r)
        # Requirements by id: which characters and strings meet each, and the patterns
        # whose first (most selective) requirement it is, with the ids of their others.
        char_needs: dict[str, list[int]] = {}
        string_needs: dict[str, list[int]] = {}
        digit_needs: list[int] = []
        first_needs: dict[int, list[int]] = {}
        more_needs: dict[int, frozenset[int]] = {}
        requirement_id = 0
        for pattern_id, needed in required.items():
            need_ids = range(requirement_id, requirement_id + len(needed))
            requirement_id += len(needed)
            for need_id, need in zip(need_ids, needed, strict=True):
                for ch in need.chars:
                    char_needs.setdefault(ch, []).append(need_id)
                for string in need.strings:
                    string_needs.setdefault(string, []).append(need_id)
                if need.digit:
                    digit_needs.append(need_id)
            if needed:
                first_needs.setdefault(need_ids[0], []).append(pattern_id)
                more_needs[pattern_id] = frozenset(need_ids[1:])
        self._char_needs = {ch: frozenset(ids) for ch, ids in char_needs.items()}
        self._need_chars = frozenset(char_needs)
        self._digit_needs = frozenset(digit_needs)
        self._first_needs = {i: tuple(p) for i, p in first_needs.items()}
        self._first_need_ids = frozenset(first_needs)
        self._more_needs = more_needs
        # Each key's value: its length when it is a phrase (0 otherwise) and the ids of
        # the requirements it meets.
        empty: frozenset[int] = frozenset()
        keys = {p: (len(p), empty) for p in self._labels}
        for string, ids in string_needs.items():
            keys[string] = (keys.get(string, (0, empty))[0], frozenset(ids))
        self._automaton: Any = None
        if keys:
            self._automaton = ahocorasick.Automaton()
            for key, value in keys.items():
                self._automaton.add_word(key, value)
            self._automaton.make_automaton()

    def find(self, text: str, boundaries: frozenset[int]) -> list[Hit]:
        hits: list[Hit] = []
        needs_met: set[int] = set()
        if self._automaton is not None:
            longest: dict[int, int] = {}  # start → end of the longest phrase there
            for last, (size, needs) in self._automaton.iter(text):
                if size:
                    start = last + 1 - size
                    if longest.get(start, 0) <= last:
                        longest[start] = last + 1
                if needs:
                    needs_met |= needs
            if longest:
                self._literal_hits(text, boundaries, longest, hits)
        if not (self._groups or self._led):
            return hits
        present = frozenset(text)
        char_needs = self._char_needs
        for ch in present & self._need_chars:
            needs_met |= char_needs[ch]
        if self._digit_needs and _DIGIT.search(text) is not None:
            needs_met |= self._digit_needs
        met = set(self._always)
        more_needs = self._more_needs
        # Only a pattern's first requirement leads to it (most requirements met are
        # others': checked through ``more_needs``).
        for need_id in needs_met.intersection(self._first_need_ids):
            for pattern_id in self._first_needs[need_id]:
                if more_needs[pattern_id] <= needs_met:
                    met.add(pattern_id)
        if not met:
            return hits
        chosen: dict[int, list[int]] = {}  # group → the ids of its patterns met
        group_of = self._group_of
        for pattern_id in met:
            index = group_of.get(pattern_id)
            if index is not None:
                chosen.setdefault(index, []).append(pattern_id)
        for index in sorted(chosen):
            group = self._groups[index]
            compiled = group.among(tuple(sorted(chosen[index])))
            label = group.label
            hits.extend(
                Hit(label, m.start(), m.end(), m.group(0))
                for m in compiled.finditer(text)
                if m.end() > m.start()
            )
        for pattern_id in sorted(met.intersection(self._led_ids)):
            compiled, first, label = self._led[pattern_id]
            if present.isdisjoint(first):
                continue
            hits.extend(
                Hit(label, m.start(), m.end(), m.group(0))
                for m in compiled.finditer(text)
                if m.end() > m.start()
            )
        return hits

    def _literal_hits(
        self, text: str, boundaries: frozenset[int], longest: Mapping[int, int], hits: list[Hit]
    ) -> None:
        """Left to right, the longest phrase at each position; one that fails the edge
        checks gives way to the next position (not to a shorter phrase at its own), one
        that passes is a hit and the search goes on after it."""
        position = 0
        for start in sorted(longest):
            if start < position:
                continue
            end = longest[start]
            phrase = text[start:end]
            if (
                not _clear_edges(text, start, end)
                or (phrase in self._short_cjk and not _on_word(phrase, start, end, boundaries))
                or (not self._words_after_numbers and _glued_to_number(text, start))
            ):
                continue
            hits.extend(Hit(label, start, end, phrase) for label in self._labels[phrase])
            position = end


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


#: Character classes wider than this give no requirement.
_MAX_CLASS = 1024


#: At most this many requirements per pattern (the most selective ones).
_MAX_REQUIREMENTS = 3


def requirements(pattern: str) -> tuple[Requirement, ...]:
    """Requirements every match of ``pattern`` meets, most selective first: each a set
    of substrings one of which the match contains (a run of literal characters, a class
    of literals, short ranges or ``\\d``, or an alternation of such), read from the regex
    parser's tree; none when the pattern says none (a match may be empty, or it ignores
    case)."""
    try:
        parsed = sre_parser.parse(pattern)
    except re.error:
        return ()
    if parsed.state.flags & re.IGNORECASE:
        return ()
    chosen: list[Requirement] = []
    for chars, strings, digit in sorted(_options_in(list(parsed)), key=_selectivity, reverse=True):
        found = Requirement(frozenset(chars), frozenset(strings), digit)
        if found not in chosen:
            chosen.append(found)
    return tuple(chosen[:_MAX_REQUIREMENTS])


_Found = tuple[set[str], set[str], bool]


def _options_in(items: list[tuple[Any, Any]]) -> list[_Found]:
    """Requirements of a sequence: each item's, and those of the sequence inside a
    group or repetition it must match."""
    c = sre_constants
    options: list[_Found] = []
    run: list[str] = []
    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            options.append(_literal_run(run))
            run = []
        if op is c.SUBPATTERN and not (av[1] | av[2]) & re.IGNORECASE:
            options += _options_in(list(av[-1]))
        elif (op is c.MAX_REPEAT or op is c.MIN_REPEAT) and av[0] >= 1:
            options += _options_in(list(av[2]))
        elif (found := _required_of(op, av)) is not None:
            options.append(found)
    if run:
        options.append(_literal_run(run))
    return options


def _required_in(items: list[tuple[Any, Any]]) -> _Found | None:
    """The most selective requirement of a sequence."""
    options = _options_in(items)
    return max(options, key=_selectivity) if options else None


def _literal_run(run: list[str]) -> _Found:
    text = "".join(run)
    return (set(), {text}, False) if len(text) > 1 else ({text}, set(), False)


def _selectivity(found: _Found) -> tuple[int, int]:
    chars, strings, digit = found
    shortest = 1 if chars or digit else min(len(s) for s in strings)
    return shortest, -(len(chars) + len(strings) + (100 if digit else 0))


def _required_of(op: Any, av: Any) -> _Found | None:
    c = sre_constants
    if op is c.IN:
        chars: set[str] = set()
        digit = False
        for item_op, item_av in av:
            if item_op is c.LITERAL:
                chars.add(chr(item_av))
            elif item_op is c.RANGE and item_av[1] - item_av[0] <= _MAX_CLASS:
                chars.update(map(chr, range(item_av[0], item_av[1] + 1)))
            elif item_op is c.CATEGORY and item_av is c.CATEGORY_DIGIT:
                digit = True
            else:
                return None  # a negated class, \\w, \\s, a wide range
        return chars, set(), digit
    if op is c.SUBPATTERN:
        if (av[1] | av[2]) & re.IGNORECASE:
            return None
        return _required_in(list(av[-1]))
    if op is c.BRANCH:
        chars, strings, digit = set(), set(), False
        for alternative in av[1]:
            found = _required_in(list(alternative))
            if found is None:
                return None
            chars |= found[0]
            strings |= found[1]
            digit = digit or found[2]
        return chars, strings, digit
    if op is c.MAX_REPEAT or op is c.MIN_REPEAT:
        return _required_in(list(av[2])) if av[0] >= 1 else None
    return None  # any character, an assertion, a group reference: nothing required


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
