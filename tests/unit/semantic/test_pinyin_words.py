"""Vocabulary words typed in full pinyin inside a question (xuhang for 续航, chang jiao
for 长焦), and single function syllables (shi, ma, you) beside Chinese. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.pinyin_words import PinyinWords
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_syllables_join_only_at_their_cuts() -> None:
    words = PinyinWords(["续航", "屏幕"], lambda spelling: False)
    assert words.reading("小米14 xuhang") == "小米14 续航"
    assert words.reading("小米14 xu hang") == "小米14 续航"
    assert words.reading("小米14 xuh ang") is None


def test_a_polyphone_is_read_in_each_of_its_readings() -> None:
    # 长 alone reads zhang; in 长焦 it is chang
    words = PinyinWords(["长焦"], lambda spelling: False)
    assert words.reading("小米14 changjiao") == "小米14 长焦"


def test_homophones_and_english_spellings_are_never_read() -> None:
    words = PinyinWords(["事件", "时间", "防水"], lambda spelling: spelling == "fangshui")
    assert words.reading("小米14 shijian") is None
    assert words.reading("小米14 fangshui") is None


def test_function_syllables_need_chinese_beside_them() -> None:
    words = PinyinWords(["屏幕"], lambda spelling: False)
    assert words.reading("小米14 shi pingmu ma") == "小米14 是屏幕吗"
    # no vocabulary word typed in pinyin: single syllables alone are not read
    assert words.reading("ma shi you") is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14 pingmu 多大", "xiaomi_14|screen_size|"),
        ("小米14 zhongliang shi duoshao", "xiaomi_14|weight|"),
        ("三星s24 ultra jiage", "samsung_galaxy_s24_ultra|price|"),
    ],
)
def test_pinyin_words_read_as_their_word(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_a_fault_typed_in_pinyin_bypasses_as_written(extractor: SemanticExtractor) -> None:
    # huai le is 坏了: the asker's broken unit, as when written in characters
    assert decided_bypass(extractor, "小米14 pingmu huai le") == "personal"
