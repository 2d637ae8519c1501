"""Round 8, names, second pass (issue 15): a Chinese numeral with a place value followed by
a digit-by-digit number (two numbers, or a range left unread), a size stated before a
name (also with 的) that is not the product's own, 个 before a storage unit, i for a name
word's long ee, brand + generation + feature + category word, numerals before a variant
nickname, a bare number + the base-edition word, a model letter and number with its
category word glued after, the product's own chip word inside a name-and-chip phrase,
questions written wholly in pinyin and a product's own variant tail said again. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from services.core.semantic.transliteration import PinyinNames
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # a model number, then a storage read digit by digit: two numbers
        ("苹果十六五一二的售价", "iphone_16|price|storage=512GB"),
        # a size before the name that the product's names or screen size carry
        ("13寸的macbook air m3重量", "macbook_air_m3|weight|"),
        ("6.1寸的苹果15重量", "iphone_15|weight|"),
        # 个 between a digit and a storage unit
        ("苹果15 pro 1个t多少钱", "iphone_15_pro|price|storage=1TB"),
        # i for the long ee of a name word
        ("华为fribuds pro 3重量", "huawei_freebuds_pro_3|weight|"),
        # brand + generation + feature + category (+ a nickname its names carry)
        ("华为三代降噪耳机重量", "huawei_freebuds_pro_3|weight|"),
        ("苹果二代降噪耳机专业版重量", "airpods_pro_2|weight|"),
        # a numeral with a place value before a variant nickname
        ("十五大杯多重", "iphone_15_pro|weight|"),
        # a bare number + the base-edition word
        ("15标准版重量", "iphone_15|weight|"),
        # a model letter and number with its category word glued after
        ("s9手表重量多少", "apple_watch_series_9|weight|"),
        ("苹果s9手表重量多少", "apple_watch_series_9|weight|"),
        # the product's own chip word as a modifier beside another attribute
        ("macbook air m3芯片的512g版本多少钱", "macbook_air_m3|price|storage=512GB"),
        ("macbook air m3芯片的续航多久", "macbook_air_m3|battery_life|"),
        # a question wholly in pinyin
        ("xiaomi shisi dianchi duoda", "xiaomi_14|battery_capacity|"),
        # the named product's own variant tail said again
        ("华为降噪耳机三代重量，就是pro3那款", "huawei_freebuds_pro_3|weight|"),
    ],
)
def test_names_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        # 十五六 is "15 or 16": no one model number
        "苹果十五六的售价",
        # a count before a nickname is no model number
        "一大杯多少钱",
        # the base-edition word comes from phone names: a car's 标准版 is its trim
        "3标准版续航",
        # a category word of another category
        "s9手机重量多少",
        "苹果s9手机重量多少",
        # chip and battery both asked
        "macbook air m3芯片和续航怎么样",
        # another product's tail said beside a name is no restatement
        "airpods pro 2重量多少 就是那个pro3",
    ],
)
def test_not_read_as_the_product(extractor: SemanticExtractor, question: str) -> None:
    assert cid_of(extractor.decide(question)) is None


def test_a_size_not_the_products_own_is_another_model(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("15寸的macbook air m3重量")
    assert isinstance(decision, Bypass) and decision.intent == "unknown_product"


def test_a_nickname_the_product_does_not_carry(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("华为三代降噪耳机超大杯多少钱")) is None


def test_chip_word_alone_is_still_asked(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("macbook air m3芯片多少核")) == "macbook_air_m3|processor|"


def test_pinyin_phrases_only_in_an_all_pinyin_question() -> None:
    forms = PinyinNames(["小米14"], (), (), ["主摄", "像素", "fapiao", "发票"])
    assert forms.replace("xiaomi 14 zhu she xiangsu") == "小米 14 主摄像素"
    # an English word beside it: nothing is read as pinyin phrases
    assert forms.replace("the zhushe is good") == "the zhushe is good"
    # a pinyin word the vocabulary writes itself stays
    assert forms.replace("fapiao") == "fapiao"
