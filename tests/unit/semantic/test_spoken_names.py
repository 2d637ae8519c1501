"""Product names as voice input writes them: a model's letter code said by its letters'
names before a spoken number (艾斯二十四, 吉踢四, 埃姆三; "ex one", "g t four", "s nine"),
a lone letter a name ends with (特斯拉魔豆歪, "model why"), a series word whose final l
a transliteration drops (魔豆 for Model), compound name words said as two words ("mac
book", "think pad"), and a memory size said without its unit ("two fifty six"). Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.transliteration import code_sounds, letter_codes
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("三星艾斯二十四 电池多大", "samsung_galaxy_s24|battery_capacity|"),
        ("三星爱斯二十四奥特拉 多重", "samsung_galaxy_s24_ultra|weight|"),
        ("苹果手表艾斯九 多重", "apple_watch_series_9|weight|"),
        ("华为手表吉踢四 屏幕多大", "huawei_watch_gt_4|screen_size|"),
        ("特斯拉魔豆三 续航多少公里", "tesla_model_3|range|"),
        ("特斯拉魔豆歪 车身尺寸", "tesla_model_y|dimensions|"),
        ("联想thinkpad 艾克斯一 carbon 什么处理器", "thinkpad_x1_carbon|processor|"),
    ],
)
def test_chinese_letter_names(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("samsung galaxy s twenty four how heavy", "samsung_galaxy_s24|weight|"),
        ("what is the screen size of the huawei watch g t four", "huawei_watch_gt_4|screen_size|"),
        ("think pad ex one carbon how heavy", "thinkpad_x1_carbon|weight|"),
        ("apple watch s nine how heavy", "apple_watch_series_9|weight|"),
        ("mac book air m three what processor", "macbook_air_m3|processor|"),
        ("tesla model why how far on a full charge", "tesla_model_y|range|"),
        ("iphone sixteen two fifty six how much", "iphone_16|price|storage=256GB"),
    ],
)
def test_english_spoken_codes(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a letter glued to a number is a zoom factor or a count, no model code
        ("the 3x one", "the 3x one"),
        # one hundred and twenty five is no memory size
        ("one twenty five", "one twenty five"),
        # two words that join into no name word stay two
        ("mac cheese", "mac cheese"),
    ],
)
def test_what_stays_as_written(extractor: SemanticExtractor, text: str, expected: str) -> None:
    assert extractor.normaliser.normalise(text) == expected


def test_letter_codes_of_names() -> None:
    numbered, alone = letter_codes(["Galaxy S24", "Watch GT 4", "Model Y", "MacBook Air (M3)"])
    assert numbered == ["s", "gt", "m"]
    assert alone == [("model", "y")]


def test_a_sound_two_codes_share_reads_neither() -> None:
    # "i" and "a" are both said 艾 (ai): that sound names neither letter.
    sounds = code_sounds(["i", "a", "gt"])
    assert ("ai",) not in sounds
    assert sounds[("ji", "ti")] == "gt"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("麦克布克艾尔埃姆三 屏幕多大", "macbook_air_m3|screen_size|"),
        ("华为飞巴斯普肉三 多少钱", "huawei_freebuds_pro_3|price|"),
        ("艾尔泡兹普肉二 防水等级多少", "airpods_pro_2|water_resistance|"),
    ],
)
def test_name_words_said_by_sound(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # 老婆说 has the consonants of airpods, but 老婆 is a word
        ("我老婆说这家店不收信用卡", "airpods"),
        # 耳机 is a word; and two sibilants (series) are too loose a sound to read
        ("苹果降噪耳机二代听歌能听多久", "series"),
        ("特斯拉小y直流快充", "series"),
    ],
)
def test_words_are_not_read_as_names(extractor: SemanticExtractor, text: str, word: str) -> None:
    assert word not in extractor.normaliser.normalise(text)
