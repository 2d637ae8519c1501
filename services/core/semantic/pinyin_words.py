"""Chinese words typed in pinyin inside a question (ip16 yanse you naxie, 华为GT4 xuhang duojiu).

A shopper whose input method is off, or who cannot find a character, types the word's
pinyin. A run of Latin words whose letters are the toneless syllables of one Chinese
word of the vocabulary (attribute, constraint and policy phrases, units, chat words),
cut only between syllables (xuhang, xu hang; never xuh ang), is read as that word when
no other vocabulary word is spelt so and the spelling is no English word nor a word the
vocabulary writes. Next to Chinese (typed or read) a single syllable is read as the one
function character it spells (shi 是, ma 吗, you 有, ji 几), when exactly one does. A
reading needs at least one vocabulary word read: single syllables alone are English as
often as pinyin. Which reading stands is the extractor's to judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import product

from pypinyin import Style, lazy_pinyin, pinyin

from services.core.semantic.transliteration import (
    FUNCTION_CHARACTERS,
    longest_pinyin_form,
    syllable_cuts,
)

_CJK_ONLY = re.compile(r"[\u4e00-\u9fff]{2,6}")
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: A Latin word on its own: not part of a model token (ip16pro, m3, 45mm).
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?![A-Za-z0-9])")
#: Readings of one word's polyphones looked at, at most.
_MAX_SPELLINGS = 8


def _spellings(word: str) -> list[list[str]]:
    """The syllable sequences ``word`` may be typed as: its reading in context, and
    every reading of its polyphones (长焦 chang jiao, though 长 alone reads zhang)."""
    syllables = lazy_pinyin(word, style=Style.NORMAL)
    if len(syllables) != len(word) or not all(s.isascii() and s.isalpha() for s in syllables):
        return []
    out = [syllables]
    per_char = [pinyin(c, style=Style.NORMAL, heteronym=True)[0] for c in word]
    count = 1
    for readings in per_char:
        count *= len(readings)
    if count <= _MAX_SPELLINGS:
        out += [list(s) for s in product(*per_char) if list(s) != syllables]
    return [s for s in out if all(x.isascii() and x.isalpha() for x in s)]


class PinyinWords:
    """Reads the pinyin-typed vocabulary words of a question as the Chinese words."""

    __slots__ = ("_forms", "_function", "_prefixes")

    def __init__(self, words: Iterable[str], is_word: Callable[[str], bool]) -> None:
        """``words``: Chinese vocabulary words; ``is_word``: whether a Latin spelling is
        a word of its own (English or the vocabulary's), never read as pinyin."""
        spelt: dict[str, set[tuple[str, frozenset[int]]]] = {}
        for word in {w for w in words if _CJK_ONLY.fullmatch(w)}:
            for syllables in _spellings(word):
                joined = "".join(syllables)
                if is_word(joined):
                    continue
                cuts = syllable_cuts(syllables)
                spelt.setdefault(joined, set()).add((word, cuts))
        # a spelling two vocabulary words share (homophones) names neither
        self._forms = {k: next(iter(v)) for k, v in spelt.items() if len({w for w, _ in v}) == 1}
        self._prefixes = frozenset(f[:end] for f in self._forms for end in range(1, len(f)))
        readings: dict[str, set[str]] = {}
        for char in FUNCTION_CHARACTERS:
            for syllable in lazy_pinyin(char, style=Style.NORMAL):
                readings.setdefault(syllable, set()).add(char)
        self._function = {k: next(iter(v)) for k, v in readings.items() if len(v) == 1}

    def reading(self, text: str) -> str | None:
        """``text`` with its pinyin-typed words read as Chinese, or None when no
        vocabulary word is typed in pinyin."""
        tokens = list(_TOKEN.finditer(text))
        if not tokens:
            return None
        # (start, end, chinese) of each word read; None for a token left as typed
        spans: list[tuple[int, int, str] | None] = []
        index = 0
        read = False
        while index < len(tokens):
            found = self._match_at(text, tokens, index)
            if found is None:
                spans.append(None)
                index += 1
                continue
            last, chinese = found
            spans.append((tokens[index].start(), tokens[last].end(), chinese))
            read = True
            index = last + 1
        if not read:
            return None
        # single syllables next to Chinese: the function characters
        replaced = self._with_function_syllables(text, tokens, spans)
        out: list[str] = []
        position = 0
        for start, end, chinese in replaced:
            gap = text[position:start]
            if gap == " " and _CJK.match(text[start - 2 : start - 1] or "a"):
                gap = ""  # Chinese words are written without spaces between them
            if gap == " " and out and _CJK.match(out[-1][-1:] or "a"):
                gap = ""
            out += (gap, chinese)
            position = end
        out.append(text[position:])
        return "".join(out)

    def _with_function_syllables(
        self,
        text: str,
        tokens: list[re.Match[str]],
        spans: list[tuple[int, int, str] | None],
    ) -> list[tuple[int, int, str]]:
        """The spans read, with each single syllable beside Chinese read as its function
        character (repeatedly: fenqi you ji → 分期有几)."""
        # map each unread span slot back to its token
        slots: list[tuple[int, int, str | None]] = []
        token_index = 0
        for span in spans:
            if span is None:
                match = tokens[token_index]
                slots.append((match.start(), match.end(), None))
                token_index += 1
            else:
                slots.append(span)
                while token_index < len(tokens) and tokens[token_index].end() <= span[1]:
                    token_index += 1
        changed = True
        while changed:
            changed = False
            for i, (start, end, chinese) in enumerate(slots):
                if chinese is not None:
                    continue
                char = self._function.get(text[start:end].lower())
                if char is None:
                    continue
                if self._chinese_before(text, slots, i) or self._chinese_after(text, slots, i):
                    slots[i] = (start, end, char)
                    changed = True
        return [(s, e, c) for s, e, c in slots if c is not None]

    @staticmethod
    def _chinese_before(text: str, slots: list[tuple[int, int, str | None]], i: int) -> bool:
        previous = slots[i - 1] if i > 0 else None
        between = text[previous[1] if previous else 0 : slots[i][0]].strip()
        if between:
            return _CJK.match(between[-1]) is not None
        return previous is not None and previous[2] is not None

    @staticmethod
    def _chinese_after(text: str, slots: list[tuple[int, int, str | None]], i: int) -> bool:
        following = slots[i + 1] if i + 1 < len(slots) else None
        between = text[slots[i][1] : following[0] if following else len(text)].strip()
        if between:
            return _CJK.match(between[0]) is not None
        return following is not None and following[2] is not None

    def _match_at(
        self, text: str, tokens: list[re.Match[str]], index: int
    ) -> tuple[int, str] | None:
        """The last token index and the Chinese word of the longest vocabulary spelling
        that starts at ``tokens[index]``."""
        return longest_pinyin_form(text, tokens, index, self._forms, self._prefixes, lower=True)
