"""The fused word segmenter gives exactly jieba's own boundaries, route and ties: between
runs, inside Latin runs and for words added later. Texts written for these tests."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.segment import WordSegmenter
from tests.unit.semantic.references import jieba_boundaries


@pytest.mark.parametrize(
    "text",
    [
        "does the zeta phone take a cheap charger",  # English words, one word each
        "iphone15pro max",  # name words jieba's dictionary holds: cut inside the run
        "thinkpadx1 carbon",
        "v2.0 a+b c#d 100% x_y re-sell",  # jieba's other word characters
        "比亚迪汉的续航多少公里",
        "华为mate60pro有线充电",
        "ok\r\nthen 长续航版",
        "",
    ],
)
def test_word_boundaries_are_jiebas(extractor: SemanticExtractor, text: str) -> None:
    # A run of ASCII letters and digits is one word unless a dictionary word starts in it.
    segmenter = extractor._segmenter
    assert segmenter.boundaries(text) == jieba_boundaries(segmenter, text)


def test_a_dictionary_word_inside_a_latin_run_still_cuts_it() -> None:
    # With Latin words in its dictionary, jieba cuts inside a run: the shortcut for
    # runs without any (the usual case) must not hide those cuts.
    segmenter = WordSegmenter(["pad", "zeta"])
    for text in ("thinkpad pro", "ipadzeta2", "zetaphone", "plain words"):
        assert segmenter.boundaries(text) == jieba_boundaries(segmenter, text), text
    assert segmenter.boundaries("ipadzeta2") == frozenset({0, 1, 4, 8, 9})


@pytest.mark.parametrize(
    "text",
    [
        "星河飞鸟的续航多久，屏幕多大？",  # runs between punctuation
        "这款手机\r\n多少钱",  # a line break jieba yields whole
        "ab一c2 星河x 续航",  # Latin, digits and Chinese in one run
        "  多少钱  ",
        "",
    ],
)
def test_runs_cut_directly_keep_jiebas_boundaries(text: str) -> None:
    segmenter = WordSegmenter(["星河飞鸟"])
    cuts = {0}
    position = 0
    for word in segmenter._tokenizer.cut(text, HMM=False):
        position += len(word)
        cuts.add(position)
    assert segmenter.boundaries(text) == frozenset(cuts)


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
