"""Product names: squeezed, shortened and completed names, nicknames of brands and series,
spoken model numbers, pinyin and initialisms, model codes, sizes and generations said
with the name, and the same name mechanisms in another domain. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.core.semantic.extractor import (
    SemanticExtractor,
)
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.products import camel_initialisms
from services.core.semantic.transliteration import (
    PinyinNames,
    Transliterator,
    opens_a_word,
    vocabulary_openings,
)
from services.semantic.loading import load_semantic_extractor
from tests.unit.semantic.decisions import cid_of, decided_bypass, decided_cid


def test_a_squeezed_name_ending_in_a_model_letter_is_split(extractor: SemanticExtractor) -> None:
    # "samsunggalaxys24": the letter before the number is the model code's (s24).
    decision = extractor.decide("samsunggalaxys24 weight")
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "samsung_galaxy_s24|weight|"


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("爱疯十五电池多大", "iphone_15|battery_capacity|"),
        # A Chinese numeral and the digits after it are two numbers.
        ("小米十四256G版本卖多少", "xiaomi_14|price|storage=256GB"),
        # A short name continued by the rest of a longer one (ThinkPad X1 Carbon Gen 12).
        ("X1 Carbon Gen 12 weight", "thinkpad_x1_carbon|weight|"),
        # 快充 names a car's DC charging: for a phone it is fast charging in general.
        ("三星S24快充多少瓦", "samsung_galaxy_s24|charging_power|"),
        # A period stated in a policy question is the rule's own, to confirm.
        ("can I return an unopened item within 14 days", "null|return_policy|item_state=unopened"),
        # The 've of "I've" is understood.
        ("I've opened the box, can I still return it?", "null|return_policy|item_state=opened"),
    ],
)
def test_numerals_names_hints_periods_and_contractions(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid


def test_completed_names_skip_names_another_product_has() -> None:
    from services.core.semantic.extractor import completed_names

    names = ["X1 Carbon", "ThinkPad X1 Carbon Gen 12"]
    assert completed_names(names, names) == ["X1 Carbon Gen 12"]
    assert completed_names(names, [*names, "X1 Carbon Gen 12"]) == []


@pytest.mark.parametrize(
    ("text", "product"),
    [("毛豆Y多重", "tesla_model_y"), ("毛豆3 长宽高多少", "tesla_model_3")],
)
def test_the_common_nickname_of_a_tesla_model_names_it(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


def test_mi_is_the_xiaomi_series_word(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("mi14 屏幕多大")
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == "xiaomi_14"


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("华子60重量多少", "huawei_mate_60|weight|"),
        ("米14屏幕多大", "xiaomi_14|screen_size|"),
        ("迪子汉多重", "byd_han|weight|"),
        ("苹果表9多重", "apple_watch_series_9|weight|"),
    ],
)
def test_shopper_nicknames_of_brands_and_series(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert cid_of(extractor.decide(text)) == cid


def test_a_bare_mi_is_no_product(extractor: SemanticExtractor) -> None:
    # 米 is the Xiaomi series only before a model number; "多少米" stays metres.
    assert not isinstance(extractor.decide("这个米多少钱"), Fingerprint)


def test_a_series_initial_before_the_model_number(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("m60p 多重")) == "huawei_mate_60_pro|weight|"
    assert cid_of(extractor.decide("华为m60 多重")) == "huawei_mate_60|weight|"
    # m3 is the M3 chip of the MacBooks, never the Model 3.
    assert not (cid_of(extractor.decide("m3 多重")) or "").startswith("tesla_model_3")


def test_a_transliterated_series_word_between_brand_and_number() -> None:
    t = Transliterator([], {}, {"牌子": ["mate"]})
    assert t.replace("牌子美特12多重") == "牌子mate 12多重"
    # Not before a number, or not after the brand: left alone.
    assert t.replace("牌子美特多重") == "牌子美特多重"
    assert t.replace("美特12多重") == "美特12多重"


def test_a_listed_name_with_another_word_of_its_brand(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("迪子汉EV多长")) in (None, "byd_han|dimensions|")
    assert isinstance(extractor.decide("迪子汉多重"), Fingerprint)


def test_a_shortened_name_is_checked_on_its_family(extractor: SemanticExtractor) -> None:
    # 三星24 drops the series word: the grammar's name, the reader sees the brand.
    assert cid_of(extractor.decide("三星24有多重")) == "samsung_galaxy_s24|weight|"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # A bare model number and variant word (or its one-letter initial) that one
        # catalog product has, with no brand or series before it.
        ("60pro 电池多大", "huawei_mate_60_pro|battery_capacity|"),
        ("15p 多重", "iphone_15_pro|weight|"),
        ("24ultra 屏幕多大", "samsung_galaxy_s24_ultra|screen_size|"),
        # A measurement asked "in" a unit the catalog uses for one attribute.
        ("how long is the model y in mm", "tesla_model_y|dimensions|"),
        # "how fast … charge" around a long product name.
        ("How fast can the MacBook Pro 14 M3 charge", "macbook_pro_14_m3|charging_power|"),
        # 哪个月 asks for a date like 哪月.
        ("小米14是哪个月发布的", "xiaomi_14|release_date|"),
        # Shopper nicknames: 遥遥领先 (Huawei), 水果 / 果子 before a model number (iPhone).
        ("遥遥领先60 多重", "huawei_mate_60|weight|"),
        ("水果16 屏幕多大", "iphone_16|screen_size|"),
    ],
)
def test_shortened_names_and_asked_units(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        "16 pro max 多重",  # a variant the catalog does not sell after a bare tail
        "k60pro 多少钱",  # a letter glued before the number: another brand's model
        "荣耀60pro多少钱",  # another brand before it
        "15p max 多重",  # a letter with another variant word after it
    ],
)
def test_bare_tails_never_name_another_model(extractor: SemanticExtractor, question: str) -> None:
    assert not isinstance(extractor.decide(question), Fingerprint)


def test_a_brand_number_and_one_variant_initial(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("华为60p 多重")) == "huawei_mate_60_pro|weight|"
    # The brand's number with a letter no model of that brand has: another model.
    assert isinstance(extractor.decide("小米14p 多少钱"), Bypass)


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # 加 that starts a vocabulary phrase or a dictionary word is no "+".
        (
            "airpods pro 2加充电盒一共能用多久",
            "airpods_pro_2|battery_life|context=with_charging_case",
        ),
        # A dropped coda l: 奥特拉 / 乌托拉 are Ultra.
        ("三星S24奥特拉 官方价", "samsung_galaxy_s24_ultra|price|"),
        ("galaxy s24乌托拉 官方价", "samsung_galaxy_s24_ultra|price|"),
        # Three or more bare numerals are a number read digit by digit.
        ("小米14 五一二 官方价", "xiaomi_14|price|storage=512GB"),
        ("iPhone 15 一二八的价格", "iphone_15|price|storage=128GB"),
        # Plain questions are untouched.
        ("galaxy s24有哪些颜色", "samsung_galaxy_s24|colors|"),
        ("how long does the galaxy s24 battery last", "samsung_galaxy_s24|battery_life|"),
        (
            "airpods pro 2 how long do the earbuds alone last",
            "airpods_pro_2|battery_life|context=audio_playback",
        ),
    ],
)
def test_spoken_variants_codas_and_digit_numbers_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The model code of a catalog value (the H2 of "Apple H2") is a stated value: its
        # digit is understood.
        ("airpods pro 2 用的芯片是h2吗", "airpods_pro_2|processor|"),
        ("does the airpods pro 2 run on an h2 chip", "airpods_pro_2|processor|"),
    ],
)
def test_model_codes_of_catalog_values(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


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
def test_spoken_model_numbers_and_nicknames_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
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
def test_spoken_model_numbers_and_nicknames_not_read(
    extractor: SemanticExtractor, question: str, not_cid: str
) -> None:
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
def test_spoken_models_we_do_not_sell_are_unknown(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "unknown_product"


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


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # 毛豆3 is listed for "model 3": a Chinese numeral after 毛豆 is the model number.
        ("毛豆三车身多重", "tesla_model_3|weight|"),
        ("毛豆三车长多少", "tesla_model_3|dimensions|"),
        # a storage size in words, or with the unit spelt out
        ("xiaomi 14 price for the one terabyte model", "xiaomi_14|price|storage=1TB"),
        ("iphone 15 price with 256 gigabytes", "iphone_15|price|storage=256GB"),
        # a bare model number + cup-size nickname: the one model of that tail + variant
        ("15大杯屏幕多大", "iphone_15_pro|screen_size|"),
        ("16大杯重量多少", "iphone_16_pro|weight|"),
        ("15超大杯重量多少", "iphone_15_pro_max|weight|"),
    ],
)
def test_series_words_spoken_sizes_and_cup_size_nicknames_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # brand + feature word + category word + generation: the one product of the brand
        # and category whose spec text carries the feature and whose names the number
        ("苹果降噪耳机二代重量多少", "airpods_pro_2|weight|"),
        ("苹果降噪豆2代什么芯片", "airpods_pro_2|processor|"),
        ("华为降噪耳机3多少钱", "huawei_freebuds_pro_3|price|"),
    ],
)
def test_description_names(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    [
        "苹果降噪耳机三代重量多少",  # no generation 3 of the brand's earbuds
        "华为降噪耳机2重量多少",  # no earbuds of the brand with a 2 in its names
        "苹果降噪手表9重量多少",  # the brand's watch carries no noise cancellation
        "苹果降噪耳机重量多少",  # no generation: not a description name
    ],
)
def test_description_names_abstain(extractor: SemanticExtractor, question: str) -> None:
    assert cid_of(extractor.decide(question)) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # vocabulary: 小Y (the Model Y's nickname), 纯电 / 纯电版 for EV (battery-electric)
        ("特斯拉小Y车身重量", "tesla_model_y|weight|"),
        ("汉纯电版车重多少", "byd_han|weight|"),
        ("比亚迪汉纯电多重", "byd_han|weight|"),
    ],
)
def test_name_vocabulary(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_ev_word_makes_no_other_car_the_han(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("汉兰达纯电版多重")) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # a name ending in its own size, with the size said first
        ("14in M3 MBP how heavy", "macbook_pro_14_m3|weight|"),
        ("14寸 m3 mbp 多重", "macbook_pro_14_m3|weight|"),
    ],
)
def test_size_said_first(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_size_said_first_only_the_own_size(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("16寸 m3 mbp 多重")) is None


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
def test_pinyin_initialisms_and_category_words_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
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
def test_pinyin_initialisms_and_category_words_not_read_as_the_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert cid_of(extractor.decide(question)) is None


def test_category_word_after_tail_is_another_model(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("苹果9代手机多重")
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
def test_place_value_numerals_sizes_and_generations_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
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
def test_place_value_numerals_sizes_and_generations_not_read_as_the_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert cid_of(extractor.decide(question)) is None


def test_a_size_not_the_products_own_is_another_model(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("15寸的macbook air m3重量")
    assert isinstance(decision, Bypass) and decision.intent == "unknown_product"


def test_chip_word_alone_is_still_asked(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("macbook air m3芯片多少核")) == "macbook_air_m3|processor|"


def test_pinyin_phrases_only_in_an_all_pinyin_question() -> None:
    forms = PinyinNames(["小米14"], (), (), ["主摄", "像素", "fapiao", "发票"])
    assert forms.replace("xiaomi 14 zhu she xiangsu") == "小米 14 主摄像素"
    # an English word beside it: nothing is read as pinyin phrases
    assert forms.replace("the zhushe is good") == "the zhushe is good"
    # a pinyin word the vocabulary writes itself stays
    assert forms.replace("fapiao") == "fapiao"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # a variant letter set apart: the one variant word of the series it starts
        ("三星S24 U多重", "samsung_galaxy_s24_ultra|weight|"),
        ("S24 U, weight?", "samsung_galaxy_s24_ultra|weight|"),
        ("苹果15 P 屏幕多大", "iphone_15_pro|screen_size|"),
        # chat after the letter: "u" is "you", the plain name stays
        ("Galaxy S24 u know the weight?", "samsung_galaxy_s24|weight|"),
        # a series word one edit or only vowels away, glued to its model number
        ("mote60 weight", "huawei_mate_60|weight|"),
        ("华为meta60 重量", "huawei_mate_60|weight|"),
        # a name's model code said first, 的 between, and its size before the series
        ("M3的13英寸MacBook Air重量", "macbook_air_m3|weight|"),
        # the alias "X1 Carbon 2024款" carries on past "ThinkPad X1 Carbon"
        ("联想ThinkPad X1 Carbon 2024款多重", "thinkpad_x1_carbon|weight|"),
        # 盖乐世 stands for galaxy, which names write before a lettered code (S24)
        ("三星盖乐世二十四ultra多重", "samsung_galaxy_s24_ultra|weight|"),
        # "i phone" is iphone, so the number word after it is the model number
        ("i phone fifteen weight", "iphone_15|weight|"),
        # a Chinese name synonym spelt in pinyin (爱疯, 盖乐世)
        ("aifeng 16 weight", "iphone_16|weight|"),
        ("gaileshi s24 weight", "samsung_galaxy_s24|weight|"),
        # the generation said before the variant word the names write it after
        ("华为耳机三代pro配色", "huawei_freebuds_pro_3|colors|"),
        ("苹果耳机二代pro重量", "airpods_pro_2|weight|"),
        # a droppable word (系列) before the number where no name writes it
        ("苹果手表系列9 41毫米多重", "apple_watch_series_9|weight|case_size=41mm"),
    ],
)
def test_set_apart_letters_misspelt_series_and_size_first_names_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        # another year's edition of the name is no alias: its number stays unexplained
        "联想ThinkPad X1 Carbon 2023款多重",
        # "airpods 2" first: the AirPods 2, never the Pro 2 reordered
        "airpods 2 pro 重量",
    ],
)
def test_set_apart_letters_misspelt_series_and_size_first_names_abstain(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


def test_a_numeral_that_opens_a_function_word_is_no_model_number(
    extractor: SemanticExtractor,
) -> None:
    # 一样 after a brand word is "the same", no model 1 we do not sell
    assert decided_bypass(extractor, "苹果一样吗") is None
    assert decided_bypass(extractor, "盖乐世一样吗") is None


CAMERA_CATALOG = {
    "version": 1,
    "products": [
        {
            "id": f"kodo_vista_8{suffix}",
            "category": "camera",
            "brand": "Kodo",
            "names": {
                "zh": [f"柯朵Vista 8{name}"],
                "en": [f"Kodo Vista 8{name}", f"Vista 8{name}"],
            },
            "specs": {
                "price": {"value": price, "unit": "CNY"},
                "weight": {"value": 0.5, "unit": "kg"},
            },
        }
        for suffix, name, price in (
            ("", "", 3999),
            ("_pro", " Pro", 5999),
            ("_plus", " Plus", 4999),
            ("_ultra", " Ultra", 7999),
        )
    ]
    + [
        {
            "id": "kodo_lens_x2",
            "category": "camera",
            "brand": "Kodo",
            "names": {"zh": ["Lens X2 2025款"], "en": ["Kodo Lens X2"]},
            "specs": {
                "price": {"value": 2999, "unit": "CNY"},
                "weight": {"value": 0.3, "unit": "kg"},
            },
        }
    ],
}


CAMERA_ATTRIBUTES = {
    "version": 1,
    "attributes": {
        "price": {
            "kind": "spec",
            "applies_to": ["camera"],
            "synonyms": {"zh": ["多少钱", "价格"], "en": ["price", "how much"]},
        },
        "weight": {
            "kind": "spec",
            "applies_to": ["camera"],
            "synonyms": {"zh": ["多重", "重量"], "en": ["weight", "how heavy"]},
        },
    },
    "constraint_values": {},
}


@pytest.fixture(scope="module")
def camera_extractor(tmp_path_factory: pytest.TempPathFactory) -> SemanticExtractor:
    directory = tmp_path_factory.mktemp("camera")
    (directory / "catalog.json").write_text(json.dumps(CAMERA_CATALOG, ensure_ascii=False))
    (directory / "attributes.json").write_text(json.dumps(CAMERA_ATTRIBUTES, ensure_ascii=False))
    (directory / "policy.json").write_text(json.dumps({"store_policies": {}}))
    return load_semantic_extractor(Path(directory))


@pytest.mark.parametrize(
    ("question", "product"),
    [
        ("Kodo Vista 8 U price", "kodo_vista_8_ultra"),  # u: only Ultra starts with it
        ("vesta8 price", "kodo_vista_8"),  # one edit from vista, glued to its number
        ("Kodo Lens X2 2025款 price", "kodo_lens_x2"),  # two overlapping aliases
    ],
)
def test_another_domain_gets_the_same_name_mechanisms(
    camera_extractor: SemanticExtractor, question: str, product: str
) -> None:
    decision = camera_extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.product == product


def test_a_set_apart_letter_two_variants_start_with_is_no_name(
    camera_extractor: SemanticExtractor,
) -> None:
    # P is Pro or Plus, both sold: neither, and never the plain Vista 8
    assert not isinstance(camera_extractor.decide("Vista 8 P price"), Fingerprint)


def test_a_set_apart_letter_that_starts_a_chinese_word_is_no_variant(
    extractor: SemanticExtractor,
) -> None:
    # p图 ("edit a photo") starts with the letter: never read as the Pro
    assert decided_cid(extractor, "苹果15 p图多少钱") != "iphone_15_pro|price|"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Apple Watch 9 battery life", "apple_watch_series_9|battery_life|"),
        ("苹果手表9多重", "apple_watch_series_9|weight|"),
        ("Apple Watch 10多重", None),  # not sold here
    ],
)
def test_a_series_word_may_be_left_out(
    extractor: SemanticExtractor, text: str, expected: str | None
) -> None:
    decision = extractor.decide(text)
    if expected is None:
        assert not isinstance(decision, Fingerprint), decision
    else:
        assert isinstance(decision, Fingerprint), decision
        assert decision.cid == expected


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("AirPods Pro gen 2 price", "airpods_pro_2|price|"),
        ("thinkpad x1c 12代多重", "thinkpad_x1_carbon|weight|"),
        ("特斯拉Y续航多少", "tesla_model_y|range|"),
    ],
)
def test_generation_words_and_dropped_model_words(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == cid
