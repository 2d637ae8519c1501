"""The phrase search as one Aho-Corasick automaton, patterns that run only when the text
holds a string every match needs, patterns led by known first characters, and name
containment in one pass: each finds exactly what the plain regex search finds."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

from services.core.semantic.phrases import (
    Hit,
    PhraseSet,
    Requirement,
    _clear_edges,
    _on_word,
    first_characters,
    requirements,
)
from services.core.semantic.reader import _NameContainment


@pytest.mark.parametrize(
    ("pattern", "first"),
    [
        ("abc", "a"),
        ("(?<![a-z])now", "n"),
        ("[§¤]\\s+x", "§¤"),
        ("(?:foo|bar)", "bf"),
        ("(a|bc)+d", "ab"),
    ],
)
def test_first_characters_of_led_patterns(pattern: str, first: str) -> None:
    assert first_characters(pattern) == frozenset(first)


@pytest.mark.parametrize("pattern", ["(^|x)y", "x?y", "\\d{8,}", ".foo", "(?i)abc", "a*b"])
def test_first_characters_unknown(pattern: str) -> None:
    assert first_characters(pattern) is None


def test_led_patterns_find_what_the_alternation_finds() -> None:
    patterns = [("(?<![a-z])now", "x"), ("(^|, )then", "x"), ("[§¤] i got", "x")]
    split = PhraseSet((), patterns, scan_led_patterns_alone=True)
    joined = PhraseSet((), patterns)
    for text in ("buy it now", "then what", "the § i got", "nothing here", "ok, then"):
        assert bool(split.find(text, frozenset())) == bool(joined.find(text, frozenset()))


def _regex_find(
    phrases: Iterable[tuple[str, str]],
    patterns: Iterable[tuple[str, str]],
    text: str,
    boundaries: frozenset[int],
) -> list[tuple[str, int, int, str]]:
    """The search as a regex alternation (longest first) and one alternation per label:
    the reference the automaton and the skipped patterns must agree with."""
    labels: dict[str, list[str]] = {}
    for phrase, label in phrases:
        key = phrase.lower().strip()
        if key and label not in labels.setdefault(key, []):
            labels[key].append(label)
    ordered = sorted(labels, key=lambda p: (-len(p), p))
    found: list[tuple[str, int, int, str]] = []
    if ordered:
        literal = re.compile("|".join(re.escape(p) for p in ordered))
        short = {p for p in ordered if len(p) <= 2 and all("\u3400" <= c <= "\u9fff" for c in p)}
        position = 0
        while (match := literal.search(text, position)) is not None:
            phrase, (start, end) = match.group(0), match.span()
            if not _clear_edges(text, start, end) or (
                phrase in short and not _on_word(phrase, start, end, boundaries)
            ):
                position = start + 1
                continue
            found += [(label, start, end, phrase) for label in labels[phrase]]
            position = end
    grouped: dict[str, list[str]] = {}
    for pattern, label in patterns:
        grouped.setdefault(label, []).append(pattern)
    for label, group in grouped.items():
        joined = re.compile("|".join(f"(?:{p})" for p in group))
        found += [
            (label, m.start(), m.end(), m.group(0))
            for m in joined.finditer(text)
            if m.end() > m.start()
        ]
    return found


def _as_tuples(hits: list[Hit]) -> list[tuple[str, int, int, str]]:
    return [(h.label, h.start, h.end, h.text) for h in hits]


PHRASES = [
    ("os", "system"),  # never inside "cost" or "chaos"
    ("repair", "service"),  # also "repaired", "repairs"
    ("fast charge", "charging"),
    ("fast charger", "accessory"),  # overlaps "fast charge" with another label
    ("charger", "accessory"),
    ("charge", "charging"),
    ("price", "price"),
    ("price", "realtime"),  # one phrase, two labels
    ("比", "compare"),  # a word of its own only
    ("续航", "battery"),  # must begin a word
    ("长续航", "trim"),
    ("5g", "network"),  # a number must not touch digits
    ("电池容量", "capacity"),
    ("池容", "nonsense"),  # overlaps 电池容量 from inside
]


PATTERNS = [
    (r"(电池|电量).{0,4}(多久|几天)", "battery"),
    (r"\bhow long\b.{0,20}\blast", "battery"),
    (r"(?<![\d.])\d+\s*(mah|毫安)", "capacity"),
    (r"(能|可以).{0,3}退(?!款)", "returns"),
    (r"^\s*(screen|屏幕)\s*$", "screen"),  # may match only a whole text
    (r"x?", "empty"),  # matches empty everywhere: never a hit
]


@pytest.mark.parametrize(
    ("text", "boundaries"),
    [
        ("what os does it run", frozenset({0, 5, 8, 13, 16})),
        ("how much does it cost, chaos", frozenset()),
        ("it was repaired twice and repairs are slow", frozenset()),
        ("repairing it", frozenset()),
        ("does the fast charger fast charge", frozenset()),
        ("fast chargers", frozenset()),
        ("price? the price!", frozenset()),
        ("5g or 25g or 5.5g or 5g", frozenset()),
        ("比亚迪比特斯拉", frozenset({0, 3, 4, 7})),  # 比 of 比亚迪 is no word
        ("长续航版续航多久", frozenset({0, 3, 4, 6, 8})),
        ("电池容量多大", frozenset({0, 2, 4, 6})),
        ("电池用几天", frozenset({0, 2, 3, 5})),
        ("how long does the battery last", frozenset()),
        ("5000mah 还是 5000 毫安", frozenset()),
        ("能退吗 可以退款吗", frozenset()),
        ("  screen ", frozenset()),
        ("屏幕", frozenset({0, 2})),
        ("", frozenset()),
        ("nothing to see here", frozenset()),
    ],
)
def test_automaton_and_skipped_patterns_find_what_the_regex_finds(
    text: str, boundaries: frozenset[int]
) -> None:
    found = PhraseSet(PHRASES, PATTERNS).find(text, boundaries)
    assert _as_tuples(found) == _regex_find(PHRASES, PATTERNS, text, boundaries)


def test_the_longest_phrase_at_a_position_that_fails_its_edges_gives_way_to_the_next() -> None:
    # "chargers" fails the edge check as "charger" + "s" is allowed (an inflection), but
    # "fast chargerx" is not: then neither a shorter phrase at the same start ("fast
    # charge") nor anything before the next position is read.
    phrases = [("fast charger", "a"), ("fast charge", "b"), ("charger", "c")]
    found = PhraseSet(phrases).find("fast chargerx", frozenset())
    assert _as_tuples(found) == _regex_find(phrases, (), "fast chargerx", frozenset())
    assert _as_tuples(found) == []


def test_overlapping_phrases_of_different_labels() -> None:
    phrases = [("电池容量", "capacity"), ("池容", "other"), ("容量", "size")]
    found = PhraseSet(phrases).find("电池容量多少", frozenset({0, 2, 4, 6}))
    # The longest phrase wins its position; those inside it are not read.
    assert _as_tuples(found) == [("capacity", 0, 4, "电池容量")]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("abc", Requirement(frozenset(), frozenset({"abc"}))),
        ("(?<![a-z])now", Requirement(frozenset(), frozenset({"now"}))),
        # The parser reads 电池|电量 as 电 and then 池 or 量: the longer strings win.
        ("(电池|电量).{0,4}(多久|几天)", Requirement(frozenset(), frozenset({"多久", "几天"}))),
        (r"\d+\s*mah", Requirement(frozenset(), frozenset({"mah"}))),
        (r"(?<![\d.])\d+", Requirement(frozenset(), frozenset(), digit=True)),
        ("[xy]z?", Requirement(frozenset("xy"), frozenset())),
        ("(a|bc)+d", Requirement(frozenset("d"), frozenset())),  # one character over two
        ("(a|bc)+", Requirement(frozenset("a"), frozenset({"bc"}))),
        ("(ab|cd)?efg", Requirement(frozenset(), frozenset({"efg"}))),
    ],
)
def test_most_selective_requirement_of_a_pattern(pattern: str, expected: Requirement) -> None:
    assert requirements(pattern)[0] == expected


def test_every_requirement_of_a_sequence_counts() -> None:
    # A number and a unit: both must be in the text (a digit alone is in most questions).
    assert requirements(r"(?<![\d.])\d+\s*(?:kg|公斤)(?![a-z])") == (
        Requirement(frozenset(), frozenset({"kg", "公斤"})),
        Requirement(frozenset(), frozenset(), digit=True),
    )
    # Inside a group or a repetition that must match, its own items count too (the
    # parser reads much|many as m and then uch or any).
    assert requirements("(?:how (much|many))+ watts") == (
        Requirement(frozenset(), frozenset({" watts"})),
        Requirement(frozenset(), frozenset({"how "})),
        Requirement(frozenset(), frozenset({"uch", "any"})),
    )
    found = PhraseSet((), [(r"(?<![\d.])\d+\s*(?:kg|公斤)", "weight")]).find
    assert found("it weighs kg", frozenset()) == []
    assert found("12 apples", frozenset()) == []
    assert _as_tuples(found("12kg", frozenset())) == [("weight", 0, 4, "12kg")]


@pytest.mark.parametrize(
    "pattern", ["x?", ".+", r"\w+", "[^a]b?", "(?i)abc", "(a|)b?", "(?i:ab)", r"\s+"]
)
def test_no_requirement(pattern: str) -> None:
    assert requirements(pattern) == ()


def test_a_pattern_runs_alone_or_not_at_all_when_its_requirement_is_missing() -> None:
    # Two patterns of one label: with only one of them possible, that one alone finds
    # what the alternation finds (overlaps across the two cannot arise).
    patterns = [("abcd", "x"), ("cde", "x"), ("(?<![0-9])[0-9]+kg", "y")]
    for text in ("abcde", "cde abcd", "zz", "12kg 3kg", "abcdefg 5kg", "a1kg"):
        found = PhraseSet((), patterns).find(text, frozenset())
        assert _as_tuples(found) == _regex_find((), patterns, text, frozenset()), text


def test_name_containment_finds_every_occurrence_in_one_pass() -> None:
    names = _NameContainment(
        [("p15", ["iPhone 15"]), ("p15pro", ["iPhone 15 Pro"]), ("twin", ["iPhone 15"])]
    )
    # A name inside a longer one found at the same place does not count; the same name
    # of two products names both; a second occurrence elsewhere counts again.
    assert names._verbatim("iphone15pro") == frozenset({"p15pro"})
    assert names._verbatim("iphone15") == frozenset({"p15", "twin"})
    assert names._verbatim("iphone15proiphone15") == frozenset({"p15pro", "p15", "twin"})
    assert names._verbatim("iphone") == frozenset()
