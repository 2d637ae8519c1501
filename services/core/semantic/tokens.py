"""Product-name tokens: the unit the product matcher compares.

Latin words, numbers and single Chinese characters; spaces and punctuation only separate
them, so "Mate60Pro", "mate 60 pro" and "MATE 60 PRO" become the same tokens. A Latin run
that is a concatenation of known name words ("promax", "airpodspro") is split into them,
the generation word 代 after a number is dropped ("Pro 2代" = "Pro 2"), and a name word
written in two halves ("air pods") is one word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[\u3400-\u9fff]|\+")
_GENERATION_WORD = "代"
# Characters that join the parts of one name ("14-inch", "dm-i") like a space does.
_JOINERS = " \t-_·()[]"
# A name word written apart has two halves of at least this many letters ("air pods");
# a model letter after a word ("model y") is a word of its own.
_MIN_HALF = 3
# Longest Latin run that may be a compound of name words ("airpodspromax"); longer runs
# are kept whole.
_MAX_COMPOUND = 40


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int
    #: True when nothing (not even a space) separates this token from the previous one.
    attached: bool
    #: True when only whitespace (no punctuation) separates it from the previous one.
    adjacent: bool
    #: True for a number the generation word 代 followed (三代 → 3): the word is dropped.
    generation: bool = False

    @property
    def is_number(self) -> bool:
        return self.text[:1].isdigit()

    @property
    def is_cjk(self) -> bool:
        return "\u3400" <= self.text[:1] <= "\u9fff"

    @property
    def is_latin(self) -> bool:
        return self.text[:1].isascii() and self.text[:1].isalpha()


class Tokeniser:
    """Splits normalised text into name tokens, with a vocabulary for compound words."""

    __slots__ = (
        "_fuzzy_targets",
        "_glued_pairs",
        "_letter_pairs",
        "_longest",
        "_sounds",
        "_splits",
        "_vocabulary",
    )

    def __init__(
        self, vocabulary: Iterable[str], letter_pairs: Iterable[tuple[str, str]] = ()
    ) -> None:
        """``letter_pairs``: (name word, model letter) a name writes in that order ("aw"
        and the "s" of "AW S9"): a short word glued to a number may be the two squeezed
        (aws9)."""
        self._vocabulary = frozenset(w for w in vocabulary if len(w) >= 2 and w.isalpha())
        self._letter_pairs = frozenset(letter_pairs)
        self._glued_pairs: frozenset[tuple[str, str]] = frozenset()
        # Only long, distinctive name words are typo-corrected: short ones (apple, model,
        # watch) are one edit away from ordinary English words (apply, modes, match).
        self._fuzzy_targets = tuple(sorted(w for w in self._vocabulary if len(w) >= 6))
        self._longest = max((len(w) for w in self._vocabulary), default=0)
        # A name word spelt as it sounds, f for ph (ifone), i for the long ee (fribuds):
        # one word per sound form, never a form that is itself a name word.
        sounds: dict[str, set[str]] = {}
        for w in self._vocabulary:
            for written, sound in (("ph", "f"), ("ee", "i")):
                if written in w:
                    sounds.setdefault(w.replace(written, sound), set()).add(w)
        self._sounds = {
            k: next(iter(v)) for k, v in sounds.items() if len(v) == 1 and k not in self._vocabulary
        }
        self._splits: dict[str, tuple[str, ...]] = {}

    def tokens(self, text: str) -> list[Token]:
        out: list[Token] = []
        previous_end = 0
        for match in _TOKEN.finditer(text):
            start, end = match.span()
            word = match.group(0)
            gap = text[previous_end:start]
            attached = not gap and bool(out)
            adjacent = bool(out) and not gap.strip(_JOINERS)
            previous_end = end
            if word == _GENERATION_WORD and out and out[-1].is_number and adjacent:
                number = out[-1]
                out[-1] = Token(
                    number.text,
                    number.start,
                    number.end,
                    number.attached,
                    number.adjacent,
                    generation=True,
                )
                continue
            if (
                out
                and adjacent
                and not attached
                and out[-1].is_latin
                and word.isascii()
                and word.isalpha()
                and len(word) >= _MIN_HALF
                and len(out[-1].text) >= _MIN_HALF
                and word not in self._vocabulary
                and out[-1].text + word in self._vocabulary
            ):
                # A name word written apart ("air pods", "think pad"): the second half is
                # no name word of its own, the two together are one.
                previous = out.pop()
                out.append(
                    Token(
                        previous.text + word,
                        previous.start,
                        end,
                        previous.attached,
                        previous.adjacent,
                    )
                )
                continue
            parts = (
                self._split(word, before_digit=text[end : end + 1].isdigit())
                if word.isalpha() and word.isascii()
                else (word,)
            )
            offset = start
            for index, part in enumerate(parts):
                out.append(
                    Token(
                        part,
                        offset,
                        offset + len(part),
                        attached if index == 0 else True,
                        adjacent if index == 0 else True,
                    )
                )
                offset += len(part)
        return out

    def add_glued_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """(short name word, letter) pairs split wherever glued ("my" + "p" of myp: a
        value initial after an initialism)."""
        self._glued_pairs = self._glued_pairs | frozenset(pairs)
        self._splits.clear()

    def _split(self, word: str, *, before_digit: bool = False) -> tuple[str, ...]:
        if (word[:-1], word[-1:]) in self._glued_pairs:
            return (word[:-1], word[-1])
        if (
            before_digit
            and word not in self._vocabulary
            and (word[:-1], word[-1:]) in (self._letter_pairs)
        ):
            # "aws9": a short name word squeezed with the model letter its names write
            # after it; only that letter (ipx7 is no "ip x7").
            return (word[:-1], word[-1])
        if word in self._vocabulary or len(word) < 4 or len(word) > _MAX_COMPOUND:
            # A compound of name words is a few words long; a longer run is no name, and
            # skipping it keeps the cost linear in the question's length.
            return (word,)
        cache_key = f"{word}#" if before_digit else word
        cached = self._splits.get(cache_key)
        if cached is None:
            cached = _segment(word, self._vocabulary, self._longest)
            if cached is None and before_digit:
                # Model codes are a letter and a number (m3, x1, s24): a squeezed name
                # ("macbookairm3") ends in that letter.
                head = _segment(word[:-1], self._vocabulary, self._longest)
                cached = (*head, word[-1]) if head is not None else None
            if cached is None:
                cached = self._correct(word)
            if len(self._splits) < 50_000:
                self._splits[cache_key] = cached
        return cached

    def _correct(self, word: str) -> tuple[str, ...]:
        """A misspelt name word ("iphnoe", "samsumg", "macbok") becomes the word it misses;
        so does one spelt with f for ph ("ifone")."""
        sounded = self._sounds.get(word)
        if sounded is not None:
            return (sounded,)
        if len(word) < 5 or not self._fuzzy_targets:
            return (word,)
        limit = 2 if len(word) >= 8 else 1
        found = process.extractOne(
            word, self._fuzzy_targets, scorer=OSA.distance, score_cutoff=limit
        )
        if found is None or found[0][0] != word[0]:
            return (word,)
        return (str(found[0]),)


def _segment(word: str, vocabulary: frozenset[str], longest: int) -> tuple[str, ...] | None:
    """Split ``word`` entirely into vocabulary words (fewest pieces), or ``None``.

    Dynamic programming over end positions with back-pointers; a piece is at most
    ``longest`` letters, so the cost is O(len(word) * longest).
    """
    size = len(word)
    pieces: list[int | None] = [None] * (size + 1)  # fewest pieces to cover word[:i]
    back = [0] * (size + 1)
    pieces[0] = 0
    for end in range(2, size + 1):
        for start in range(max(0, end - longest), end - 1):
            head = pieces[start]
            if head is None or word[start:end] not in vocabulary:
                continue
            current = pieces[end]
            if current is None or head + 1 < current:
                pieces[end] = head + 1
                back[end] = start
    if pieces[size] is None:
        return None
    out: list[str] = []
    end = size
    while end > 0:
        start = back[end]
        out.append(word[start:end])
        end = start
    return tuple(reversed(out))
