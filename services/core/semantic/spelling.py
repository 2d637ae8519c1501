"""Spelling repair against the vocabulary the data files define (no typo tables).

Two general mechanisms, both built at construction from the words the catalog, the
attribute vocabulary and the lexicon use:

- **Chinese homophones.** Shoppers type with pinyin input methods, so a wrong character is
  usually one that sounds the same (冲电 for 充电, 平果 for 苹果, 多少前 for 多少钱). A run of
  two to six Chinese characters that is neither a vocabulary word nor a common word of the
  general dictionary (jieba's frequencies) is replaced by the vocabulary word of the same
  length whose pinyin it shares character by character (any reading of a polyphone
  counts: 行 is xing or hang), when at most one character (two from four) differs and
  exactly one vocabulary word fits. Product and brand names match without tones (an input
  method offers all tones: 华伟 → 华为); other words need the same tones (买完 mai3 never
  becomes 卖完 mai4). pypinyin supplies the readings.
- **Latin misspellings.** A Latin word of six or more letters that is neither a vocabulary
  word nor a common English word (pyspellchecker's frequency list) is
  replaced by the vocabulary word at optimal-string-alignment distance 1 (2 from eight
  letters; transpositions count as one edit) with the same first letter, when exactly one
  word is that close (rapidfuzz).
- **Latin abbreviations.** A word no English word and no vocabulary or name word that is
  the clipped beginning (four letters or more: perf) or the consonants, vowels dropped
  (three or more, same first letter: pwr, chrg, btry), of exactly one vocabulary word
  (not a name word) is that word.

Replacements keep the text's length for Chinese, so offsets stay meaningful.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from itertools import pairwise

from pypinyin import Style, lazy_pinyin, pinyin
from rapidfuzz import process
from rapidfuzz.distance import OSA

_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_LATIN_WORD = re.compile(r"[a-z]+")
#: A word or number of a name, and the one after a typed word (one space at most).
_NAME_WORD = re.compile(r"[a-z]+|\d+")
_NEXT_WORD = re.compile(r" ?([a-z]+|\d+)")
_MIN_LATIN = 6
#: A clipping keeps four letters of its word or more (perf); a vowel-dropped form
#: three consonants or more (pwr).
_MIN_CLIPPING = 4
_MIN_CONSONANTS = 3
#: Shorter product-name words (tesla, mate, pro) are repaired too, more cautiously.
_MIN_NAME_LATIN = 3
_MIN_SHORT_EDIT = 4
_MAX_CJK = 6
_READINGS_CACHE_LIMIT = 20_000
#: A typed word this frequent in the general dictionary is a word, not a typo.
_COMMON_WORD_FREQUENCY = 50
#: From this length a word may differ from what was typed in two characters (one below).
_TWO_OFF_FROM = 4
#: Vocabulary words a window may stand for: (word, its syllables, read without tones).
_Candidates = tuple[tuple[str, tuple[str, ...], bool], ...]


class SpellingCorrector:
    __slots__ = (
        "_abbreviations",
        "_before",
        "_by_first",
        "_cjk_words",
        "_common",
        "_english",
        "_latin_targets",
        "_latin_words",
        "_name_targets",
        "_one_off_index",
        "_openings",
        "_positional",
        "_readings",
    )

    def __init__(
        self,
        vocabulary: Iterable[str],
        name_words: Iterable[str] = (),
        common_words: Mapping[str, int] | None = None,
        english_words: Mapping[str, int] | None = None,
        toneless_words: Iterable[str] = (),
    ) -> None:
        """``toneless_words``: attribute words that also match without tones (包修 → 保修:
        bao1 and bao3 are one key on a pinyin keyboard), as names do; a common word of
        the general dictionary still stays, and two fits still leave the text alone."""
        cjk: set[str] = set()
        latin: set[str] = set()
        names: set[str] = set()
        name_latin: set[str] = set()
        for phrase in vocabulary:
            text = phrase.lower()
            cjk.update(r for r in _CJK_RUN.findall(text) if 2 <= len(r) <= _MAX_CJK)
            latin.update(_LATIN_WORD.findall(text))
        vocabulary_latin = frozenset(latin)
        # The name word each word or number follows in the names ("mate" before a number
        # of "Mate 60", "han" before "ev" of "Han EV"): a typo of a short name word is
        # repaired where a name writes that word next (mete 60, hann ev).
        before: dict[str, set[str]] = {}
        for phrase in name_words:
            text = phrase.lower()
            names.update(r for r in _CJK_RUN.findall(text) if 2 <= len(r) <= _MAX_CJK)
            latin.update(_LATIN_WORD.findall(text))
            name_latin.update(_LATIN_WORD.findall(text))
            words = _NAME_WORD.findall(text)
            for word, nxt in pairwise(words):
                if word.isalpha() and len(word) >= _MIN_NAME_LATIN:
                    before.setdefault("#" if nxt[0].isdigit() else nxt, set()).add(word)
        self._before = {k: frozenset(v) for k, v in before.items()}
        also_toneless = {
            r
            for phrase in toneless_words
            for r in _CJK_RUN.findall(phrase.lower())
            if 2 <= len(r) <= _MAX_CJK
        }
        self._readings: dict[tuple[str, bool], frozenset[str]] = {}
        self._cjk_words = frozenset(cjk | names)
        self._common = common_words or {}
        self._english = english_words or {}
        # A vocabulary word is read as a phrase (价格 is jia4 ge2, never jie ge); a typed
        # character may stand for any of its readings. Names match without tones (the
        # input method offers every tone); other words need the tones too, so 买完 (mai3)
        # never becomes 卖完 (mai4). Index: (first syllable, read without tones) → length.
        by_first: dict[tuple[str, bool], dict[int, list[tuple[str, tuple[str, ...]]]]] = {}
        for word in sorted(self._cjk_words):
            toneless = word in names
            ways = (toneless, True) if word in also_toneless else (toneless,)
            for way in dict.fromkeys(ways):
                style = Style.NORMAL if way else Style.TONE3
                syllables = tuple(lazy_pinyin(word, style=style, neutral_tone_with_five=True))
                if len(syllables) == len(word):
                    by_length = by_first.setdefault((syllables[0], way), {})
                    by_length.setdefault(len(word), []).append((word, syllables))
        self._by_first = {
            key: {length: tuple(words) for length, words in by_length.items()}
            for key, by_length in by_first.items()
        }
        # A typed character → the words a window it opens may stand for (filled lazily).
        self._openings: dict[str, Mapping[int, _Candidates]] = {}
        self._positional: dict[tuple[str, int], Mapping[tuple[int, str], _Candidates]] = {}
        # Words shorter than four characters may differ from a window in one character
        # only: by (that position, the characters kept), so a window finds them directly.
        one_off: dict[tuple[int, str], list[tuple[str, tuple[str, ...], bool]]] = {}
        for (_, way), lengths in self._by_first.items():
            for length, listed in lengths.items():
                if length >= _TWO_OFF_FROM:
                    continue
                for word, syllables in listed:
                    for position in range(length):
                        kept = word[:position] + word[position + 1 :]
                        one_off.setdefault((position, kept), []).append((word, syllables, way))
        self._one_off_index = {k: tuple(v) for k, v in one_off.items()}
        self._latin_words = frozenset(latin)
        self._abbreviations = _abbreviations(vocabulary_latin - name_latin)
        self._latin_targets = tuple(sorted(w for w in latin if len(w) >= _MIN_LATIN))
        self._name_targets = tuple(sorted(w for w in name_latin if len(w) >= _MIN_NAME_LATIN))

    def correct(self, text: str) -> str:
        if self._by_first:
            text = _CJK_RUN.sub(lambda m: self._correct_run(m.group(0)), text)
        if self._latin_targets or self._name_targets:
            text = _LATIN_WORD.sub(self._correct_latin_match, text)
        return text

    def _correct_latin_match(self, match: re.Match[str]) -> str:
        word = match.group(0)
        fixed = self._correct_latin(word)
        if fixed != word or len(word) < _MIN_NAME_LATIN or word in self._latin_words:
            return fixed
        if self._english.get(word, 0) >= _COMMON_WORD_FREQUENCY:
            return word
        nxt = _NEXT_WORD.match(match.string, match.end())
        if nxt is None:
            return word
        key = "#" if nxt.group(1)[0].isdigit() else nxt.group(1)
        fits = [
            target
            for target in self._before.get(key, ())
            if target[0] == word[0] and OSA.distance(word, target) == 1
        ]
        return fits[0] if len(fits) == 1 else word

    def _reading(self, char: str, toneless: bool) -> frozenset[str]:
        found = self._readings.get((char, toneless))
        if found is None:
            style = Style.NORMAL if toneless else Style.TONE3
            found = frozenset(
                pinyin(char, style=style, heteronym=True, neutral_tone_with_five=True)[0]
            )
            if len(self._readings) < _READINGS_CACHE_LIMIT:
                self._readings[(char, toneless)] = found
        return found

    def _correct_run(self, run: str) -> str:
        chars = list(run)
        index = 0
        while index < len(chars) - 1:
            keep, replacement = self._homophone_at(run, chars, index)
            if replacement is not None:
                chars[index : index + len(replacement)] = replacement
                index += len(replacement)
            else:
                index += max(1, keep)
        return "".join(chars)

    def _homophone_at(self, run: str, chars: list[str], index: int) -> tuple[int, str | None]:
        """(length of a correct vocabulary word here, or a replacement). ``chars`` is
        ``run`` with the repairs made so far, all before ``index``."""
        by_length = self._candidates(chars[index])
        # Longest window first; a window that already is a vocabulary word stays.
        for length in range(min(_MAX_CJK, len(chars) - index), 1, -1):
            window = run[index : index + length]
            if window in self._cjk_words:
                return length, None
            if self._common.get(window, 0) >= _COMMON_WORD_FREQUENCY:
                return length, None  # a common word of its own (接口), not a typo
            if length < _TWO_OFF_FROM:
                fits = self._one_off(window)
            else:
                candidates = by_length.get(length)
                if candidates is None:
                    continue
                # At most two of four or more characters differ, so one of the second,
                # third and fourth matches as typed: only words sharing one are compared.
                by_character = self._by_character(chars[index], length, candidates)
                fits = {
                    word
                    for position in (1, 2, 3)
                    for word, syllables, toneless in by_character.get(
                        (position, window[position]), ()
                    )
                    if self._sounds_like(window, word, syllables, toneless)
                }
            if len(fits) == 1:
                fit = fits.pop()
                changed = [index + i for i, ch in enumerate(fit) if chars[index + i] != ch]
                if self._word_overlaps(chars, index, length, changed):
                    return 0, None  # 有现货: 现货 is a word as typed, 有线 only repaired
                return 0, fit
            if len(fits) > 1:
                return 0, None  # two readings compete: leave the text alone
        return 0, None

    def _by_character(
        self, opening: str, length: int, candidates: _Candidates
    ) -> Mapping[tuple[int, str], _Candidates]:
        """``candidates`` (the words of ``length`` a window opening with ``opening`` may
        stand for) by (position, character) for the second to fourth characters."""
        key = (opening, length)
        found = self._positional.get(key)
        if found is None:
            index: dict[tuple[int, str], list[tuple[str, tuple[str, ...], bool]]] = {}
            for candidate in candidates:
                for position in (1, 2, 3):
                    index.setdefault((position, candidate[0][position]), []).append(candidate)
            found = {k: tuple(v) for k, v in index.items()}
            if len(self._positional) < _READINGS_CACHE_LIMIT:
                self._positional[key] = found
        return found

    def _one_off(self, window: str) -> set[str]:
        """The vocabulary words of the window's length (two or three characters) that
        differ from it in exactly one character, read as the typed one may be read, and
        open with a reading of the window's first character: what comparing it with every
        candidate syllable by syllable finds, looked up by the characters kept."""
        fits: set[str] = set()
        for position in range(len(window)):
            kept = window[:position] + window[position + 1 :]
            for word, syllables, toneless in self._one_off_index.get((position, kept), ()):
                if (
                    word[position] != window[position]
                    and syllables[0] in self._reading(window[0], toneless)
                    and syllables[position] in self._reading(window[position], toneless)
                ):
                    fits.add(word)
        return fits

    def _candidates(self, char: str) -> Mapping[int, _Candidates]:
        """The vocabulary words of four characters or more a window opening with ``char``
        may stand for, by length: (word, its syllables, read without tones) for every
        reading of ``char``."""
        found = self._openings.get(char)
        if found is None:
            by_length: dict[int, list[tuple[str, tuple[str, ...], bool]]] = {}
            for toneless in (True, False):
                for reading in self._reading(char, toneless):
                    for length, words in self._by_first.get((reading, toneless), {}).items():
                        if length >= _TWO_OFF_FROM:  # shorter ones: ``_one_off``
                            by_length.setdefault(length, []).extend(
                                (word, syllables, toneless) for word, syllables in words
                            )
            found = {length: tuple(words) for length, words in by_length.items()}
            if len(self._openings) < _READINGS_CACHE_LIMIT:
                self._openings[char] = found
        return found

    def _word_overlaps(self, chars: list[str], index: int, length: int, changed: list[int]) -> bool:
        """Whether a vocabulary word, as typed, starts inside the window, runs past it
        and either contains a character the repair would change (现货 of 有现货) or
        shares with it characters that are no word of their own (保 of 家保修 read as
        价保): then the text already has a reading, and the repair would only compete
        with it. Two readings that share a whole word (充电 of 有线充电 and 充电多少,
        a vocabulary or common word) agree."""
        window_end = index + length
        for start in range(index + 1, window_end):
            shared = "".join(chars[start:window_end])
            shared_is_word = len(shared) > 1 and (
                shared in self._cjk_words or self._common.get(shared, 0) >= _COMMON_WORD_FREQUENCY
            )
            for size in range(2, min(_MAX_CJK, len(chars) - start) + 1):
                end = start + size
                if (
                    end > window_end
                    and "".join(chars[start:end]) in self._cjk_words
                    and (any(start <= c < end for c in changed) or not shared_is_word)
                ):
                    return True
        return False

    def _sounds_like(
        self, window: str, word: str, syllables: tuple[str, ...], toneless: bool
    ) -> bool:
        differing = 0
        for typed, meant, syllable in zip(window, word, syllables, strict=True):
            if typed == meant:
                continue
            differing += 1
            if syllable not in self._reading(typed, toneless):
                return False
        return 0 < differing <= (1 if len(word) < _TWO_OFF_FROM else 2)

    def _correct_latin(self, word: str) -> str:
        if word in self._latin_words:
            return word
        if self._english.get(word, 0) >= _COMMON_WORD_FREQUENCY:
            return word  # a real English word ("different"), not a misspelt "difference"
        if word not in self._english:
            meant = self._abbreviated(word)
            if meant is not None:
                return meant
        if len(word) < _MIN_LATIN:
            return self._correct_short_name(word)
        limit = 2 if len(word) >= 8 else 1
        found = process.extract(
            word, self._latin_targets, scorer=OSA.distance, score_cutoff=limit, limit=3
        )
        close = [str(m[0]) for m in found if str(m[0])[0] == word[0]]
        if not close:
            return word
        best = min(OSA.distance(word, c) for c in close)
        nearest = [c for c in close if OSA.distance(word, c) == best]
        return nearest[0] if len(nearest) == 1 else word

    def _abbreviated(self, word: str) -> str | None:
        """The one vocabulary word ``word`` clips (perf) or writes without vowels (pwr)."""
        fits: set[str] = set()
        if len(word) >= _MIN_CLIPPING:
            fits.update(self._abbreviations.get(f"^{word}", ()))
        skeleton = _consonants(word)
        if len(skeleton) >= _MIN_CONSONANTS:
            fits.update(
                w for w in self._abbreviations.get(f"~{skeleton}", ()) if _is_subsequence(word, w)
            )
        fits.discard(word)
        return fits.pop() if len(fits) == 1 else None

    def _correct_short_name(self, word: str) -> str:
        """A short word next to a product-name word: two adjacent letters swapped (telsa,
        mtae, por), a letter typed twice (maxx, proo) or x written as it sounds, ks
        (maks), or, from four letters and for a name word of five or more, one letter
        dropped, added or changed (utra, wach; never "prob" for "pro"), with the same
        first letter; only when exactly one name word fits."""
        if len(word) < _MIN_NAME_LATIN:
            return word
        fits = {
            target
            for target in self._name_targets
            if target[0] == word[0]
            and target != word
            and (
                _swapped(word, target)
                or _doubled(word, target)
                or _x_spelt_out(word, target)
                or (
                    len(word) >= _MIN_SHORT_EDIT
                    and len(target) > _MIN_SHORT_EDIT
                    and OSA.distance(word, target) == 1
                )
            )
            and abs(len(target) - len(word)) <= 1
        }
        return fits.pop() if len(fits) == 1 else word


def _abbreviations(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``^clip`` → the words that begin with it, ``~consonants`` → the words with those
    consonants (vowels dropped, a doubled one written once), for a lookup per word."""
    found: dict[str, set[str]] = {}
    for word in words:
        for end in range(_MIN_CLIPPING, len(word)):
            found.setdefault(f"^{word[:end]}", set()).add(word)
        skeleton = _consonants(word)
        if len(skeleton) >= _MIN_CONSONANTS:
            found.setdefault(f"~{skeleton}", set()).add(word)
    return {k: tuple(sorted(v)) for k, v in found.items()}


def _consonants(word: str) -> str:
    """The consonants of ``word`` in order, a doubled one once (battery → btry)."""
    out = [ch for ch in word if ch not in _VOWELS]
    return "".join(ch for i, ch in enumerate(out) if i == 0 or out[i - 1] != ch)


_VOWELS = frozenset("aeiou")


def _is_subsequence(typed: str, meant: str) -> bool:
    """Whether ``typed`` is ``meant`` with letters left out, the first one kept."""
    if not typed or typed[0] != meant[0]:
        return False
    letters = iter(meant)
    return all(ch in letters for ch in typed)


def _doubled(typed: str, meant: str) -> bool:
    """Whether ``typed`` is ``meant`` with one of its letters typed twice (maxx, proo)."""
    return len(typed) == len(meant) + 1 and any(
        typed[i] == typed[i + 1] and typed[:i] + typed[i + 1 :] == meant
        for i in range(len(typed) - 1)
    )


def _x_spelt_out(typed: str, meant: str) -> bool:
    """Whether ``typed`` is ``meant`` with its x written as the sound it stands for in
    English, ks (maks for max)."""
    return "x" in meant and "ks" in typed and typed.replace("ks", "x") == meant


def _swapped(typed: str, meant: str) -> bool:
    """Whether ``typed`` is ``meant`` with two adjacent letters swapped."""
    if len(typed) != len(meant):
        return False
    diff = [i for i, (a, b) in enumerate(zip(typed, meant, strict=True)) if a != b]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and typed[diff[0]] == meant[diff[1]]
        and typed[diff[1]] == meant[diff[0]]
    )


#: An English word this frequent is one a shopper types without thinking (game, wall).
_EVERYDAY_FREQUENCY = 10_000
#: A plural's singular needs less: the dictionary lists few plurals (timelines).
_SINGULAR_FREQUENCY = 1_000
_MIN_COMPOUND_PART = 3
_MIN_EVERYDAY_TYPO = 5
#: A word this long, one letter off a dictionary word of some use (seperately), is that
#: word misspelt: no product or vocabulary word is so long and so near a common word.
_MIN_LONG_TYPO = 9
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class PlainEnglish:
    """Whether a word the dictionary lacks is plain English all the same: two everyday
    words written as one (gameplay, wallbox), a plural (timelines), or an everyday word
    with one letter dropped, added or changed (usualy), none of them near a word that
    carries meaning here (a name word, a vocabulary word: "promx" stays unknown)."""

    __slots__ = ("_deletes", "_english", "_meaning", "_meaning_list")

    def __init__(self, english_words: Mapping[str, int], meaning_words: Iterable[str]) -> None:
        self._english = english_words
        self._meaning = frozenset(w for w in meaning_words if w.isascii() and w.isalpha())
        self._meaning_list = tuple(sorted(self._meaning))
        deletes: dict[str, set[str]] = {}
        for word, count in english_words.items():
            if count >= _EVERYDAY_FREQUENCY and len(word) >= _MIN_EVERYDAY_TYPO - 1:
                for cut in (word, *(word[:i] + word[i + 1 :] for i in range(len(word)))):
                    deletes.setdefault(cut, set()).add(word)
        self._deletes = {k: frozenset(v) for k, v in deletes.items()}

    def reads(self, word: str) -> bool:
        meaning = self._meaning
        if self._compound(word, meaning) or self._plural(word, meaning):
            return True
        return self._typo(word)

    def _everyday(self, word: str, meaning: frozenset[str]) -> bool:
        return self._english.get(word, 0) >= _EVERYDAY_FREQUENCY and word not in meaning

    def _compound(self, word: str, meaning: frozenset[str]) -> bool:
        return any(
            self._everyday(word[:i], meaning) and self._everyday(word[i:], meaning)
            for i in range(_MIN_COMPOUND_PART, len(word) - _MIN_COMPOUND_PART + 1)
        )

    def _plural(self, word: str, meaning: frozenset[str]) -> bool:
        stem = word[:-1]
        return (
            word.endswith("s")
            and self._english.get(stem, 0) >= _SINGULAR_FREQUENCY
            and stem not in meaning
        )

    def _long_typo(self, word: str) -> bool:
        """Whether a long word is one letter changed from a dictionary word used at least
        as often as a listed plural's singular, keeping its first letter."""
        if len(word) < _MIN_LONG_TYPO:
            return False
        english = self._english
        for i in range(1, len(word)):
            for letter in _LETTERS:
                changed = word[:i] + letter + word[i + 1 :]
                if changed != word and english.get(changed, 0) >= _SINGULAR_FREQUENCY:
                    return True
        return False

    def _typo(self, word: str) -> bool:
        if len(word) < _MIN_EVERYDAY_TYPO:
            return False
        cuts = (word, *(word[:i] + word[i + 1 :] for i in range(len(word))))
        near = {w for cut in cuts for w in self._deletes.get(cut, ()) if w[0] == word[0]}
        if not any(OSA.distance(word, w) == 1 for w in near) and not self._long_typo(word):
            return False
        # near a word that carries meaning here, it may be that word misspelt
        return not process.extract(
            word, self._meaning_list, scorer=OSA.distance, score_cutoff=2, limit=1
        )
