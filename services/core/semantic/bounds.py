"""Bounds: a number a comparison word puts a limit on ("超过500公里", "6.8寸以上",
"under 200 g", "less than 1.3kg").

A bound asks the product's own value to be checked against it: the number is the asker's,
not a value the product lists, so it names no variant and, after "than", no other product.
The words are a closed class of the language (comparison words and the comparative
adjectives of measures); what the number measures is the attribute's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Chinese comparison words before a number (超过 500, 不到 200g). 过 alone is one only
#: right after the attribute it bounds (官方价过9000): elsewhere it is an aspect particle.
_ZH_BEFORE = (
    "不超过|不高于|不低于|不少于|不多于|不大于|不小于|不到|不足|超过|超出|高于|低于|少于|多于"
    "|大于|小于|至少|起码|过"
)
#: Chinese comparison words after a number and its unit (6.8寸以上, 24万以下).
_ZH_AFTER = "以上|以下|以内|之上|之下"
#: English comparison words before a number: prepositions of a limit and comparatives
#: with "than" (the measures' adjectives, in -er or with more/less).
_EN_BEFORE = (
    r"(?:no |not )?(?:more|less|fewer|greater|higher|lower|bigger|larger|smaller|heavier"
    r"|lighter|thicker|thinner|longer|shorter|wider|narrower|taller|faster|slower|cheaper"
    r"|pricier)\s+than"
    r"|at least|at most|(?:no|not) (?:more|less) than|upwards of|in excess of|north of"
    r"|under|over|above|below|beyond|exceeds?|exceeding"
)
#: A number, perhaps with a multiplier (10k, 29万).
_NUMBER = r"(\d+(?:\.\d+)?)\s*(k(?![a-z])|千|万)?"
#: A unit or a measure word may stand between the number and 以上 (6.8寸以上, 700km以上).
_UNIT_GAP = r"(?:\s*[a-z\u4e00-\u9fff]{1,4}?)??"

_BEFORE = re.compile(rf"(?:(?<![a-z])(?P<en>{_EN_BEFORE})\s*|(?P<zh>{_ZH_BEFORE})\s*){_NUMBER}")
_AFTER = re.compile(rf"(?<![\d.]){_NUMBER}{_UNIT_GAP}\s*(?P<after>{_ZH_AFTER})")
#: Verbs of change before a bound: the number is where a value goes (降到24万以下, 提到30W以上),
#: or by how much it changed (提升了超过50公里), not a limit on the value as it is.
_CHANGE_BEFORE = re.compile(
    r"(?:降|跌|涨|提|升|减|加|缩|延|掉|卖|便宜|贵|长|短|重|轻|快|慢|多|少)(?:到|至|了|破)?\s*$"
    r"|(?:drops?|dropped|fall|falls|fell|rise|rises|rose|increase[sd]?|decrease[sd]?"
    r"|improve[sd]?|by|(?:go|goes|went|get|gets|got|come|comes|came)\s+(?:down|up))"
    r"\s+(?:to\s+)?$"
    # a modal of the future: "会超过720km吗" forecasts a value, it does not confirm one
    r"|(?:会|将|会不会|将会)\s*$|\b(?:will|would|going to)\s+(?:[a-z]+\s+){0,2}$"
)
#: A comparative after the bound: "more than 300g heavier" is a difference, not a limit.
_COMPARATIVE_AFTER = re.compile(
    r"\s*(?:[a-z\u4e00-\u9fff]{0,6}\s*)?(?:[a-z]+er\b|more\b|less\b|更|还)"
)
#: Multipliers of a number (10k, 3千, 29万).
MULTIPLIERS = {"k": 1000.0, "千": 1000.0, "万": 10000.0}


@dataclass(frozen=True, slots=True)
class Bound:
    """One bound: the span of its words and number, the number's span, and its value."""

    start: int
    end: int
    number_start: int
    number_end: int
    #: Where the number ends with its multiplier (10k: after the k).
    value_end: int
    #: The number with its multiplier applied (10k → 10000).
    value: float
    #: Whether the comparison word is a comparative with "than".
    than: bool
    #: Whether the word is 过, a bound only right after the attribute it bounds.
    needs_head: bool


def find_bounds(text: str) -> list[Bound]:
    """The bounds of ``text`` (normalised, products masked), left to right; a number
    whose value changes (降到…以下) or that a comparative follows (a difference) is none."""
    found: list[Bound] = []
    for match in _BEFORE.finditer(text):
        word = match.group("en") or match.group("zh")
        if _CHANGE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue
        if match.group("en") and _COMPARATIVE_AFTER.match(text, match.end()):
            continue
        found.append(
            Bound(
                match.start(),
                match.end(),
                match.start(3),
                match.end(3),
                max(match.end(3), match.end(4)),
                _value(match.group(3), match.group(4)),
                word.endswith("than"),
                word == "过",
            )
        )
    for match in _AFTER.finditer(text):
        if any(b.number_start == match.start(1) for b in found):
            continue
        if _CHANGE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue
        found.append(
            Bound(
                match.start(),
                match.end(),
                match.start(1),
                match.end(1),
                max(match.end(1), match.end(2)),
                _value(match.group(1), match.group(2)),
                False,
                False,
            )
        )
    return sorted(found, key=lambda b: b.start)


def _value(number: str, multiplier: str | None) -> float:
    return float(number) * MULTIPLIERS.get(multiplier or "", 1.0)
