"""Round 8, names (issue 15): catalog Chinese names spelt in pinyin, initialisms glued to
their number (i15, aws9) or written in capitals (MY), model codes and generation words
with a category word (联想X1笔记本, 苹果9代手表), a configuration word before a variant
nickname (顶配超大杯), a bare model number apart from the brand word, a brand and
category word of another brand (a second product) and names read only in context (m3
for a car, series 9 with a watch's own value). Questions written for these tests, not
taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from services.core.semantic.transliteration import PinyinNames
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # pinyin of a catalog Chinese name, joined or spaced on syllable cuts
        ("biyadi han weight", "byd_han|weight|"),
        ("bi ya di han 重量多少", "byd_han|weight|"),
        ("xiao mi 14 weight", "xiaomi_14|weight|"),
        ("pingguo 16 重量", "iphone_16|weight|"),
        # a name word spelt as it sounds, f for ph
        ("ifone 15 weight", "iphone_15|weight|"),
        # an English-letter initial glued to its number
        ("i16 weight?", "iphone_16|weight|"),
        ("i15pm screen size", "iphone_15_pro_max|screen_size|"),
        # a short name word squeezed with the model letter its names write after it
        ("AWS9 41mm weight", "apple_watch_series_9|weight|case_size=41mm"),
        # a synonym with a dropped word: the reader is shown the name
        ("aw9 45mm weight", "apple_watch_series_9|weight|case_size=45mm"),
        # capitals initialism, with a category-only constraint or its brand word
        ("what does the MY long range cost", "tesla_model_y|price|trim=long_range"),
        ("Tesla MY weight", "tesla_model_y|weight|"),
        # a category word after brand + tail confirms it; 代 and a Chinese unit after
        ("苹果九代手表41毫米多重", "apple_watch_series_9|weight|case_size=41mm"),
        # brand + model code + category word
        ("联想X1笔记本多重", "thinkpad_x1_carbon|weight|"),
        # a configuration word between the name and its nickname
        ("苹果15顶配超大杯512G多少钱", "iphone_15_pro_max|price|storage=512GB"),
        # a bare model number apart from the brand word, followed by 的
        ("十六的128版本多少钱 是苹果的", "iphone_16|price|storage=128GB"),
        # "a terabyte" is one terabyte
        ("price of the iphone 16 pro with a terabyte", "iphone_16_pro|price|storage=1TB"),
        # m3 in a car's context (an AC charging value only cars have)
        ("m3 ac charging speed in kw", "tesla_model_3|charging_power|method=ac"),
        # a short form after its own brand word clashes only with that brand's names
        ("特斯拉M3多重", "tesla_model_3|weight|"),
        # a value's initial glued to an initialism: the product and that value
        ("特斯拉M3P续航多少", "tesla_model_3|range|trim=performance"),
        ("tesla m3p weight", "tesla_model_3|weight|"),
        ("特斯拉MYL多少钱", "tesla_model_y|price|trim=long_range"),
        # "pro max" its brand never writes, the max before a spec phrase: the adjective
        (
            "huawei mate 60 pro max wireless charging in watts",
            "huawei_mate_60_pro|charging_power|method=wireless",
        ),
        # series 9 alone, with a number only a watch's water-resistance text writes
        ("can the series 9 go to 50 m underwater", "apple_watch_series_9|water_resistance|"),
    ],
)
def test_names_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        # a pinyin form cut inside a syllable, or one syllable alone, is nothing
        "xiaom i 14 weight",
        "pin gguo 16 weight",
        # "I 15": the pronoun apart from the number
        "can I 15 return it",
        # my in lower case is the word; MY in capitals without a car context is nothing
        "tesla my weight",
        "how heavy is MY one",
        # a category word that contradicts the tail's product: not that product
        "苹果9代手机多重",
        # a bare number followed by a counter is no model number
        "苹果的十五天退货包括哪些",
        # m3 without a car's context stays unread
        "m3 weight",
    ],
)
def test_not_read_as_the_product(extractor: SemanticExtractor, question: str) -> None:
    assert cid_of(extractor.decide(question)) is None


def test_category_word_after_tail_is_another_model(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("苹果9代手机多重")
    assert isinstance(decision, Bypass) and decision.intent == "unknown_product"


def test_pro_max_a_brand_writes_stays_a_variant(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("iphone 16 pro max wireless charging in watts")
    assert isinstance(decision, Bypass) and decision.intent == "unknown_product"


def test_other_brand_family_is_a_second_product(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("小米手机和苹果15谁更重")
    assert isinstance(decision, Bypass) and decision.intent == "compare"


def test_capitals_say_nothing_in_an_all_caps_question(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("WHAT DOES THE MY LONG RANGE COST")) is None


def test_pinyin_forms() -> None:
    pinyin = PinyinNames(["比亚迪汉", "Xiaomi 14", "小米14"], ["比亚迪", "xiaomi"], {"fan": 1})
    assert pinyin.replace("biyadi han range") == "比亚迪汉 range"
    assert pinyin.replace("biyadi range") == "比亚迪 range"
    # a form that is a Latin name word is that word, joined
    assert pinyin.replace("xiao mi 14") == "xiaomi 14"
    # two spaces, or a cut inside a syllable: nothing
    assert pinyin.replace("xiao  mi 14") == "xiao  mi 14"
    assert pinyin.replace("xia omi 14") == "xia omi 14"
