"""Normaliser fast paths: the homophone repair's candidate index repairs what a brute-force
search repairs, a skipped substitution could not have matched, look-alike digits need a
letter before them, and the pinyin search stops where no form begins."""

from __future__ import annotations

import re

import pytest
from pypinyin import Style, lazy_pinyin, pinyin

from services.core.semantic import normalise
from services.core.semantic.spelling import SpellingCorrector
from services.core.semantic.transliteration import PinyinNames


def _readings(char: str, toneless: bool) -> frozenset[str]:
    style = Style.NORMAL if toneless else Style.TONE3
    return frozenset(pinyin(char, style=style, heteronym=True, neutral_tone_with_five=True)[0])


def _brute_force_repair(
    vocabulary: list[str], names: list[str], common: dict[str, int], run: str
) -> str:
    """The homophone repair with no index: at each position, the longest window first,
    every vocabulary word of its length compared syllable by syllable."""
    words: list[tuple[str, tuple[str, ...], bool]] = []
    for word in sorted(set(vocabulary) | set(names)):
        toneless = word in names
        style = Style.NORMAL if toneless else Style.TONE3
        syllables = tuple(lazy_pinyin(word, style=style, neutral_tone_with_five=True))
        if len(syllables) == len(word):
            words.append((word, syllables, toneless))
    known = {w for w, _, _ in words}

    def sounds_like(window: str, word: str, syllables: tuple[str, ...], toneless: bool) -> bool:
        if syllables[0] not in _readings(window[0], toneless):
            return False
        differing = [i for i, (a, b) in enumerate(zip(window, word, strict=True)) if a != b]
        return 0 < len(differing) <= (1 if len(word) < 4 else 2) and all(
            syllables[i] in _readings(window[i], toneless) for i in differing
        )

    chars = list(run)
    index = 0
    while index < len(chars) - 1:
        step, replacement = 1, None
        for length in range(min(6, len(chars) - index), 1, -1):
            window = run[index : index + length]
            if window in known or common.get(window, 0) >= 50:
                step = length
                break
            fits = {w for w, s, t in words if len(w) == length and sounds_like(window, w, s, t)}
            if len(fits) == 1:
                replacement = fits.pop()
                break
            if fits:
                break
        if replacement is not None:
            changed = [index + i for i, ch in enumerate(replacement) if chars[index + i] != ch]
            overlaps = any(
                "".join(chars[start : start + size]) in known
                and start + size > index + len(replacement)
                and any(start <= c < start + size for c in changed)
                for start in range(index + 1, index + len(replacement))
                for size in range(2, min(6, len(chars) - start) + 1)
            )
            if not overlaps:
                chars[index : index + len(replacement)] = replacement
                index += len(replacement)
                continue
            step = 1
        index += step
    return "".join(chars)


VOCABULARY = ["充电", "续航", "价格", "屏幕", "多少钱", "保修", "无线充电", "现货"]


NAMES = ["星河", "飞鸟"]


COMMON = {"接口": 800, "有线": 900}


@pytest.mark.parametrize(
    "run",
    [
        "冲电多久",  # one character off, same tones: repaired
        "星禾的续行怎么样",  # a name without tones, then a word with them
        "价哥多少前",  # two repairs in a row
        "无限冲电",  # four characters, two off
        "有现货吗",  # a common word as typed next to a vocabulary word
        "接口平幕",
        "飞鸟飞鸟充电",
        "这个",
        "",
    ],
)
def test_candidate_index_repairs_what_the_brute_force_search_repairs(run: str) -> None:
    corrector = SpellingCorrector(VOCABULARY, NAMES, common_words=COMMON)
    assert corrector.correct(run) == _brute_force_repair(VOCABULARY, NAMES, COMMON, run)


@pytest.mark.parametrize(
    ("pattern", "needed"),
    [
        (normalise._ORDINAL_GENERATION, "gen"),
        (normalise._GEN_NUMBER, "gen"),
        (normalise._ORDINAL_WORD_GENERATION, "gen"),
        (normalise._DI_GENERATION, "第"),
    ],
)
def test_a_skipped_substitution_could_not_have_matched(
    pattern: re.Pattern[str], needed: str
) -> None:
    # The normaliser runs these only when the text holds the word every match contains.
    for text in ("2nd gen", "(3rd generation)", "gen 2", "generation12", "第 3 代", "second gen"):
        for found in pattern.finditer(text):
            assert needed in found.group(0)


def test_look_alike_digits_need_a_letter_before_a_digit() -> None:
    normaliser = normalise.TextNormaliser(["星河"], names=["星河 14"])
    assert normaliser.normalise("星河l4") == "星河14"
    assert normaliser.normalise("星河lo") == "星河lo"  # no digit after: left alone


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the longest form is still found past a shorter one it begins with
        ("xing he fei niao xu hang duo shao", "星河飞鸟续航多少"),
        ("xing hefeiniao", "星河飞鸟"),
        ("xing he xu hang duo shao", "星河续航多少"),
        ("xinghe s1 battery", "星河 s1 battery"),
        # words that begin no form stop the search at once: left as written
        ("xing", "xing"),
        ("he fei", "he fei"),
    ],
)
def test_pinyin_search_stops_where_no_form_begins(text: str, expected: str) -> None:
    names = PinyinNames(["星河 S1", "星河飞鸟", "飞鸟"], phrases=["多少", "续航"])
    assert names.replace(text) == expected
