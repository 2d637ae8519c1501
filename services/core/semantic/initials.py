"""Pinyin initials: Chinese words typed as the first letters of their syllables.

Chinese chat writes a word by the initials of its pinyin (sx for 三星, kf for 客服, zfb
for 支付宝, bzd for 不知道). The initials of the vocabulary's Chinese words (brands,
series, attribute, constraint and policy phrases, the lexicon's chat words) are derived
once with pypinyin; a Latin token that is the initials of some of them is offered as
each of those words. Which reading stands is the extractor's to judge: this module only
finds the tokens and the words they may be.

A token is offered only when it is no word of its own: not an English word, not a word
the vocabulary or a catalog name writes. Two letters are offered only in a question
with Chinese in it (in an English question "hw" or "fp" is anything but pinyin).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import product

from pypinyin import Style, lazy_pinyin

_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,8}")
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: A Latin token of initials; a brand's may be glued to a model number (xm14).
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2,6}(?![A-Za-z])")
#: From three letters a token is offered in any question.
_ANY_CONTEXT_FROM = 3
#: Readings of one question looked at, at most (each costs one decision).
_MAX_READINGS = 8


@dataclass(frozen=True, slots=True)
class InitialsWord:
    """A vocabulary word a token may stand for; ``brand`` set for a brand's word."""

    word: str
    brand: str = ""


@dataclass(frozen=True, slots=True)
class Reading:
    """``text`` with tokens read as words; ``brands``: (word, brand) of the brand words."""

    text: str
    brands: tuple[tuple[str, str], ...]


def initials_of(word: str) -> str:
    """The first letter of each syllable's pinyin (三星 → sx, 不知道 → bzd)."""
    return "".join(s[:1] for s in lazy_pinyin(word, style=Style.FIRST_LETTER)).lower()


class PinyinInitials:
    """Finds initials tokens in a question and the readings they allow."""

    __slots__ = ("_by_initials",)

    def __init__(
        self,
        words: Iterable[str],
        brand_words: Mapping[str, Iterable[str]],
        is_word: Callable[[str], bool],
    ) -> None:
        """``words``: Chinese vocabulary words; ``brand_words``: brand → its words;
        ``is_word``: whether a Latin token is a word of its own (never offered)."""
        found: dict[str, dict[str, InitialsWord]] = {}
        brand_of = {
            w: brand for brand, ws in brand_words.items() for w in ws if _CJK_WORD.fullmatch(w)
        }
        for word in sorted({*words, *brand_of}):
            if not _CJK_WORD.fullmatch(word):
                continue
            initials = initials_of(word)
            if len(initials) != len(word) or not initials.isalpha() or is_word(initials):
                continue
            found.setdefault(initials, {})[word] = InitialsWord(word, brand_of.get(word, ""))
        self._by_initials = {k: tuple(v.values()) for k, v in found.items()}

    def words_for(self, token: str) -> tuple[InitialsWord, ...]:
        return self._by_initials.get(token.lower(), ())

    def readings(self, text: str) -> list[Reading]:
        """Every way of reading the initials tokens of ``text`` as their words (none when
        it has no such token, or too many ways)."""
        chinese = _CJK.search(text) is not None
        spots: list[tuple[int, int, tuple[InitialsWord, ...]]] = []
        for match in _TOKEN.finditer(text):
            words = self._by_initials.get(match.group().lower())
            if not words or (not chinese and len(match.group()) < _ANY_CONTEXT_FROM):
                continue
            if match.end() < len(text) and text[match.end()].isdigit():
                # glued to a number, only a brand's initials (xm14), never a phrase's
                words = tuple(w for w in words if w.brand)
                if not words:
                    continue
            spots.append((match.start(), match.end(), words))
        if not spots:
            return []
        count = 1
        for _, _, words in spots:
            count *= len(words)
        if count > _MAX_READINGS:
            return []
        out: list[Reading] = []
        for choice in product(*(words for _, _, words in spots)):
            parts: list[str] = []
            position = 0
            for (start, end, _), word in zip(spots, choice, strict=True):
                parts += (text[position:start], word.word)
                position = end
            parts.append(text[position:])
            brands = tuple((w.word, w.brand) for w in choice if w.brand)
            out.append(Reading("".join(parts), brands))
        return out
