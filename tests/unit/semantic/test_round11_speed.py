"""Round 11 (issue 15), speed: fast paths that must give exactly what the plain
computation gives. Texts and words written for these tests, not taken from any labelled
set."""

from __future__ import annotations

import pytest

from services.core.semantic.segment import WordSegmenter
from tests.unit.semantic.references import jieba_boundaries


@pytest.mark.parametrize(
    "text",
    [
        "星河飞鸟的续航多久，，屏幕多大？！",  # several characters between two runs
        "这款手机\r\n多少钱\r\r\n好\n\r吗",  # \r\n whole; a lone \r or \n alone
        "多少钱\t \u3000 ？ ",  # tabs, an ideographic space, trailing text
        "azq9b 的 qvx, xqv zzq9",  # Latin dictionary words inside Latin runs
        "zq9 qv",  # runs that are dictionary words themselves
        "plain latin words only",  # no dictionary word inside
        "",
    ],
)
def test_boundaries_are_jiebas_between_runs_and_in_latin_runs(text: str) -> None:
    # Latin user words: a run of letters and digits holding one is not one word.
    segmenter = WordSegmenter(["星河飞鸟", "zq9", "qv"])
    assert segmenter.boundaries(text) == jieba_boundaries(segmenter, text)


def test_latin_words_added_later_are_searched_too() -> None:
    segmenter = WordSegmenter(["星河飞鸟"])
    text = "azq9b qvx"
    assert segmenter.boundaries(text) == frozenset({0, 5, 6, 9})
    segmenter.add_words(["zq9", "qv"])
    assert segmenter.boundaries(text) == jieba_boundaries(segmenter, text)
    assert segmenter.boundaries(text) != frozenset({0, 5, 6, 9})


@pytest.mark.parametrize(
    "text",
    [
        "鼋鼍鼗",  # two routes of equal sums: jieba takes the longer first word
        "x鼋鼍鼗y1z 鼍鼗鼋 ab鼋c",  # single Latin characters the route leaves alone, joined
        "星河飞鸟续航多久星河",
        "鼋",
    ],
)
def test_runs_keep_jiebas_route_and_its_ties(text: str) -> None:
    # Equal frequencies make 鼋鼍|鼗 and 鼋|鼍鼗 sum to the same float.
    segmenter = WordSegmenter(["鼋", "鼍", "鼗", "鼋鼍", "鼍鼗", "星河飞鸟"])
    assert segmenter.boundaries(text) == jieba_boundaries(segmenter, text)
