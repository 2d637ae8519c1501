"""Chinese word segmentation (jieba) used to keep short cues on word boundaries.

Substring matching alone would read 比 inside 比亚迪 as "compare" or 续航 inside 长续航版
as a range question. A cue of one or two Chinese characters therefore only counts when
jieba, primed with the catalog's names and the lexicon's phrases, puts a word boundary on
both of its ends.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from math import log
from typing import Any

import ahocorasick
import jieba
import jieba.posseg

#: The runs of characters jieba segments (its own expression, of version 0.42).
_JIEBA_BLOCK: re.Pattern[str] = jieba.re_han_default

#: What jieba joins when its route leaves them alone (its ``re_eng``).
_LATIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

#: Adjectives of quantity jieba tags as numerals: 比较 before them is "fairly" too.
_QUANTITY = frozenset(("多", "少"))
#: Verbs after which 比较 still compares: the copula and 有 (比较是否…, 比较有哪些区别).
_NOT_GRADED = frozenset(("是", "是否", "有"))


class WordSegmenter:
    """A private jieba tokenizer, initialised once and quietly."""

    __slots__ = ("_ascii_words", "_tagger", "_tokenizer", "general_frequencies")

    def __init__(self, user_words: Iterable[str] = ()) -> None:
        jieba.setLogLevel(logging.WARNING)
        self._tokenizer = jieba.Tokenizer()
        self._tokenizer.initialize()
        self.general_frequencies: dict[str, int] = dict(self._tokenizer.FREQ)
        self._tagger = jieba.posseg.POSTokenizer(self._tokenizer)
        self._ascii_words: Any = None
        self.add_words(user_words)

    def add_words(self, user_words: Iterable[str]) -> None:
        for word in sorted(set(user_words)):
            if word.strip():
                # A high frequency makes jieba prefer the lexicon's words.
                self._tokenizer.add_word(word, freq=100_000)
        # The dictionary words (of a frequency above 0: the ones jieba's search takes)
        # that a run of ASCII letters and digits can contain; without one in it, jieba
        # returns the run whole (each character alone, the Latin ones joined again).
        ascii_words = [
            w
            for w, freq in self._tokenizer.FREQ.items()
            if freq and len(w) >= 2 and w.isascii() and w.isalnum()
        ]
        self._ascii_words = None
        if ascii_words:
            self._ascii_words = ahocorasick.Automaton()
            for word in ascii_words:
                self._ascii_words.add_word(word, None)
            self._ascii_words.make_automaton()

    def words(self, text: str) -> list[str]:
        return list(self._tokenizer.cut(text, HMM=False))

    def boundaries(self, text: str) -> frozenset[int]:
        """Character offsets where a word starts or ends.

        jieba cuts each run of its word characters on its own; a run of ASCII letters
        and digits that contains no dictionary word of two characters or more is one
        word to it, so most English words need no segmentation. Between runs ``cut``
        yields each character alone (a ``\\r\\n`` line break whole)."""
        cuts = {0}
        position = 0
        ascii_words = self._ascii_words
        # The split alternates text between runs (odd places: the runs themselves).
        for index, block in enumerate(_JIEBA_BLOCK.split(text)):
            if not block:
                continue
            if not index % 2:
                cuts.update(range(position + 1, position + len(block) + 1))
                if "\r\n" in block:
                    cuts.difference_update(
                        position + k + 1
                        for k in range(len(block) - 1)
                        if block[k : k + 2] == "\r\n"
                    )
                position += len(block)
                continue
            if (
                block.isascii()
                and block.isalnum()
                and (ascii_words is None or next(ascii_words.iter(block), None) is None)
            ):
                position += len(block)
                cuts.add(position)
                continue
            self._run_cuts(block, position, cuts)
            position += len(block)
        return frozenset(cuts)

    def _run_cuts(self, run: str, position: int, cuts: set[int]) -> None:
        """Adds to ``cuts`` the word ends jieba's dictionary search (``cut(HMM=False)``
        on one run of its word characters, jieba 0.42) gives ``run`` (at ``position``):
        the same walk of the prefix dictionary and the same route of the greatest sum of
        log frequencies, in one pass and without jieba's generators; single Latin letters
        and digits the route leaves alone are joined into one word, as jieba does."""
        frequencies = self._tokenizer.FREQ
        size = len(run)
        logtotal = log(self._tokenizer.total)
        score = [0.0] * (size + 1)
        last = [0] * (size + 1)
        for start in range(size - 1, -1, -1):
            best_score, best_last = 0.0, -1
            end = start
            fragment = run[start]
            while end < size and fragment in frequencies:
                frequency = frequencies[fragment]
                if frequency:
                    value = log(frequency) - logtotal + score[end + 1]
                    # jieba's max over (value, end), ends ascending: a tie goes to the later
                    if best_last < 0 or value >= best_score:
                        best_score, best_last = value, end
                end += 1
                fragment = run[start : end + 1]
            if best_last < 0:  # no word starts here: the character alone (log 1)
                best_score, best_last = 0.0 - logtotal + score[start + 1], start
            score[start] = best_score
            last[start] = best_last
        start = 0
        joined = False
        while start < size:
            end = last[start] + 1
            if end - start == 1 and run[start] in _LATIN:
                joined = True
            else:
                if joined:
                    cuts.add(position + start)
                    joined = False
                cuts.add(position + end)
            start = end
        if joined:
            cuts.add(position + size)

    def time_words_and_verbs(self, text: str) -> tuple[list[tuple[int, int]], bool]:
        """Spans of time words (jieba's tags t and f: 周末, 最近) and whether a verb other
        than 有 follows one of them (最近在看电车 tells what the asker is doing; 最近有…
        asks what there is)."""
        tagged = [(pair.word, pair.flag) for pair in self._tagger.cut(text, HMM=False)]
        spans: list[tuple[int, int]] = []
        verb = False
        position = 0
        for word, flag in tagged:
            if flag in {"t", "f"}:
                spans.append((position, position + len(word)))
            elif spans and flag.startswith("v") and word not in {"有", "是"}:
                verb = True
            position += len(word)
        return spans, verb

    def has_verb(self, text: str) -> bool:
        """Whether jieba's tagger finds a verb in ``text`` (看, 看到 in 我在网上看到的…)."""
        return any(pair.flag.startswith("v") for pair in self._tagger.cut(text, HMM=False))

    def degree_adverbs(self, text: str) -> list[tuple[int, int]]:
        """Spans of adverbs that modify an adjective right after them (jieba's part-of-
        speech tags: 比较 in 车库比较窄 is "fairly", not "compare")."""
        tagged = [(pair.word, pair.flag) for pair in self._tagger.cut(text, HMM=False)]
        spans: list[tuple[int, int]] = []
        position = 0
        for index, (word, flag) in enumerate(tagged):
            following, after = tagged[index + 1][::-1] if index + 1 < len(tagged) else ("", "")
            # 多 / 少 are adjectives of quantity the tagger calls numerals (打游戏比较多);
            # a status word (z: 匆忙, 紧张) describes as an adjective does.
            if flag.startswith("d") and (
                following.startswith(("a", "z"))
                or after in _QUANTITY
                or (following == "v" and _graded_verb(tagged, index + 1))
            ):
                spans.append((position, position + len(word)))
            elif not flag.startswith("d"):
                opening = self._graded_opening(word)
                if opening:
                    spans.append((position, position + opening))
            position += len(word)
        return spans

    def _graded_opening(self, word: str) -> int:
        """The length of the degree adverb a dictionary word of jieba's opens with when
        the rest of it is an adjective, a status word or a verb of two characters or
        more (比较满意, 比较忙: "fairly …"), or a set phrase of it and a short word
        (比较关心); 0 otherwise (比较价格 compares prices, 比较起来 is the verb)."""
        tags = self._tagger.word_tag_tab
        for size in (2, 1):
            rest = word[size:]
            if not rest or not tags.get(word[:size], "").startswith("d"):
                continue
            kind = tags.get(rest, "")
            if (
                kind.startswith(("a", "z"))
                or (kind.startswith("v") and _graded_verb([(rest, "v")], 0))
                # A set phrase (tag l) of the adverb and a word of one or two characters
                # (比较关心, the dictionary tags 关心 a noun).
                or (tags.get(word) == "l" and kind[:1] in {"v", "n"} and len(rest) <= 2)
            ):
                return size
        return 0


def _graded_verb(tagged: list[tuple[str, str]], index: int) -> bool:
    """Whether the verb at ``index`` is one a degree adverb before it grades (比较在意,
    比较纠结, 比较怕踩坑: verbs of feeling), not a complement of 比较 the verb "compare":
    a directional one (比较起来, 比较出来), a reduplicated "try and see" (比较看看) or a
    single character ending the phrase (比较完了, 比较买哪个); the copula and 有 stay
    "compare" (比较是否…)."""
    verb = tagged[index][0]
    if verb in _NOT_GRADED or verb[-1] in "来去" or (len(verb) % 2 == 0 and _doubled(verb)):
        return False
    if len(verb) > 1:
        return True
    # A one-character verb of feeling takes an object (比较怕踩坑, 比较爱拍照); one
    # followed by a particle, a pronoun or nothing is the action compared or its result.
    _, after = tagged[index + 1] if index + 1 < len(tagged) else ("", "x")
    return after[:1] not in {"u", "r", "x", "m", "q", "f", ""}


def _doubled(verb: str) -> bool:
    """看看, 比较比较: a verb said twice."""
    half = len(verb) // 2
    return verb[:half] == verb[half:]
