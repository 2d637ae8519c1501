"""Round 7 (issue 15), product names and numbers: spoken English model numbers
(sixteen, model three, second gen), a one-character variant nickname (破 for Pro), brand +
model tail + variant nickname (华为60专业版), a transliterated series word before a
Chinese numeral (麦特六十), codes of a product's own text value (麒麟9000S, iOS 17), a
one-character short name read from context (汉 of 比亚迪汉) and a series initial with the
model letter after a Chinese brand word (特斯拉MY). Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.lexicon import number_heads
from services.core.semantic.normalise import TextNormaliser, parse_english_number
from services.core.semantic.products import camel_initialisms
from services.core.semantic.transliteration import (
    Transliterator,
    opens_a_word,
    vocabulary_openings,
)
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # English number words after a word a model number follows in the names.
        ("what colours does the iphone fifteen come in", "iphone_15|colors|"),
        ("how heavy is the huawei mate sixty", "huawei_mate_60|weight|"),
        ("weight of the tesla model three in kg", "tesla_model_3|weight|"),
        ("airpods pro second generation price", "airpods_pro_2|price|"),
        # 破 right after a model number is the clipped Pro.
        ("苹果15破重量多少", "iphone_15_pro|weight|"),
        ("苹果16破 屏幕多大", "iphone_16_pro|screen_size|"),
        # brand + model tail + variant nickname: the brand's one tail with that variant.
        ("华为60专业版重量多少", "huawei_mate_60_pro|weight|"),
        ("华为六十专业版屏幕几寸", "huawei_mate_60_pro|screen_size|"),
        # a transliterated series word before a Chinese numeral
        ("华为麦特六十重量多少", "huawei_mate_60|weight|"),
        # a code the product's own text value writes explains its number
        ("华为mate60 pro 处理器是麒麟9000s吗", "huawei_mate_60_pro|processor|"),
        ("iphone 15 出厂系统是ios 17吗", "iphone_15|operating_system|"),
        # 汉 alone, with an attribute or constraint value only cars have
        ("汉的直流快充多少千瓦", "byd_han|charging_power|method=dc_fast"),
        ("汉续航多少公里", "byd_han|range|"),
        # series initial + model letter after a Chinese brand word
        ("特斯拉MY多重", "tesla_model_y|weight|"),
        # a model letter and number alone (s9), with a value only watches have
        ("s9 45mm的重量", "apple_watch_series_9|weight|case_size=45mm"),
        # ... or the series word and number alone ("series 9" was an unknown model)
        ("weight of the 41 mm series 9", "apple_watch_series_9|weight|case_size=41mm"),
        # a name read past a filler word is shown to the reader without it
        ("小米的14有几种颜色", "xiaomi_14|colors|"),
        # a vocabulary word starting with a numeral ends the number before it
        ("小米十四三围是多少", "xiaomi_14|dimensions|"),
        # l typed for 1 between a Chinese series word and a digit
        ("小米l4多重", "xiaomi_14|weight|"),
        # CamelCase name words by their capitals, also squeezed with the next initial
        ("app2有几种颜色", "airpods_pro_2|colors|"),
        ("ap pro2 多重", "airpods_pro_2|weight|"),
        ("fb pro 3 有哪些颜色", "huawei_freebuds_pro_3|colors|"),
        # a size before the name that the product's own names carry
        ("13英寸 m3 macbook air 屏幕多大", "macbook_air_m3|screen_size|"),
        # a number glued to a unit after a head is a measure, not a model number
        ("苹果九代手表45mm多重", "apple_watch_series_9|weight|case_size=45mm"),
    ],
)
def test_round11_names_fingerprints(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "not_cid"),
    [
        # 破 as a verb (破了), or starting a word (破损), is no Pro.
        ("苹果15破了还能保修吗", "iphone_15_pro|warranty|"),
        ("苹果15破损了能退吗", "iphone_15_pro|return_policy|"),
        # ... and what follows must open a word of the question (破屏险: insurance)
        ("苹果15破屏险多少钱", "iphone_15_pro|price|"),
        # 汉 inside a word, or with an attribute every category has, names nothing
        ("汉字的续航多少", "byd_han|range|"),
        ("汉的颜色有哪些", "byd_han|colors|"),
        # a letter glued to the short name is another model
        ("汉L续航多少", "byd_han|range|"),
        # a name the dictionary does not know that starts with the character
        ("汉兰达直流快充多少千瓦", "byd_han|charging_power|method=dc_fast"),
        # a variant word after the model letter and number: another model
        ("s9 ultra 45mm多重", "apple_watch_series_9|weight|case_size=45mm"),
        # s9 alone with nothing a watch alone has: a Galaxy S9 too
        ("s9 多重", "apple_watch_series_9|weight|"),
        # "my" after the Latin brand word is the English word
        ("tesla my range question", "tesla_model_y|range|"),
        # an initialism that is an English word, apart from the number, is that word
        ("how much does the app 2 cost", "airpods_pro_2|price|"),
        # a squeezed initialism (fbp) hides a variant word: no model tail of its own
        ("华为耳机3的颜色", "huawei_freebuds_pro_3|colors|"),
    ],
)
def test_round11_names_not_read(extractor: SemanticExtractor, question: str, not_cid: str) -> None:
    assert cid_of(extractor.decide(question)) != not_cid


@pytest.mark.parametrize(
    "question",
    [
        "比亚迪汉L续航多少",  # a model letter glued to the listed name: another model
        "华为60超大杯多重",  # the Mate 60 has no Pro Max or Ultra in the catalog
        "tesla model seventy range",  # a spoken model number the catalog does not sell
        "15英寸 m3 macbook air 多重",  # a size no name of the product carries
        "series 9 price",  # nothing only a watch has: the unknown model it was
        "galaxy s9 41mm price",  # another series word before the letter and number
    ],
)
def test_round11_unknown_models(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "unknown_product"


def test_spoken_numbers_only_after_a_number_head() -> None:
    normaliser = TextNormaliser([], number_heads=["iphone", "model"])
    assert normaliser.normalise("iphone twenty-four") == "iphone 24"
    assert normaliser.normalise("Model Three range") == "model 3 range"
    assert normaliser.normalise("three models of iphone") == "three models of iphone"
    # a number word that counts the noun after it is no model number
    assert normaliser.normalise("the model three years ago") == "the model three years ago"
    assert normaliser.normalise("iphone two or three") == "iphone two or three"
    # "one" alone is the pronoun
    assert normaliser.normalise("the model one") == "the model one"
    assert normaliser.normalise("airpods second gen") == "airpods 2代"
    assert parse_english_number("sixty") == 60
    assert parse_english_number("twenty four") == 24


def test_number_heads_come_from_the_names() -> None:
    heads = number_heads(["iPhone 15 Pro", "Tesla Model 3", "Galaxy S24", "AirPods Pro 2"])
    assert heads == ["iphone", "model", "pro"]


def test_one_character_nickname_needs_a_model_number_and_no_verb() -> None:
    t = Transliterator([], {"破损": 500}, vocabulary=["重量"], nicknames={"破": "pro"})
    assert t.replace("苹果15破重量") == "苹果15 pro 重量"
    assert t.replace("苹果15破了") == "苹果15破了"
    assert t.replace("苹果15破损") == "苹果15破损"
    assert t.replace("屏幕破了15天") == "屏幕破了15天"


def test_context_name_is_checked_by_the_reader_as_its_listed_name(
    extractor: SemanticExtractor,
) -> None:
    # the reader agrees only because it reads 汉 as 比亚迪汉; the attribute is still its own
    decision = extractor.decide("汉的交流慢充功率多少")
    assert isinstance(decision, Fingerprint)
    assert decision.cid == "byd_han|charging_power|method=ac"


def test_initialisms_of_camel_case_words() -> None:
    assert camel_initialisms("AirPods Pro 2") == [("airpods", "ap", "app")]
    assert camel_initialisms("Huawei FreeBuds Pro 3") == [("freebuds", "fb", "fbp")]
    # one capital (iPhone), all capitals (BYD) or none: no initialism
    assert camel_initialisms("iPhone 15 Pro") == []
    assert camel_initialisms("BYD Han EV") == []


def test_a_short_name_must_be_followed_by_the_start_of_a_word() -> None:
    openings = vocabulary_openings(["续航", "电池容量", "重"])
    assert opens_a_word("续航多少", openings)
    assert opens_a_word("的续航", openings)  # a function character
    assert opens_a_word(" 续航", openings)
    assert opens_a_word("", openings)
    assert opens_a_word("重量", openings)  # a one-character phrase
    assert not opens_a_word("兰达续航", openings)


def test_look_alike_letters_only_where_no_name_writes_them() -> None:
    assert TextNormaliser(["联想"]).normalise("联想l14多重") == "联想114多重"
    # a catalog that sells an L14 keeps the letter
    assert TextNormaliser(["联想"], names=["联想L14"]).normalise("联想l14多重") == "联想l14多重"
    assert TextNormaliser(["小米"]).normalise("小米lol") == "小米lol"


def test_a_numeral_vocabulary_word_ends_the_number() -> None:
    normaliser = TextNormaliser(["小米"], ["三围"])
    assert normaliser.normalise("小米十四三围") == "小米14三围"
    assert normaliser.normalise("小米十四") == "小米14"
