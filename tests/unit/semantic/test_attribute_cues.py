"""Attribute cues: the words, phrases and catalog spec texts that name the attribute asked,
where a cue sits inside another phrase or a time frame, and the keys that everyday
wording reads. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import (
    SemanticExtractor,
)
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint
from tests.unit.semantic.decisions import cid_of, rules_cid
from tests.unit.semantic.decisions import decided_cid as _key


def test_a_cue_starting_inside_a_constraint_phrase_is_no_cue(
    extractor: SemanticExtractor,
) -> None:
    # 充电 of 充电盒 (the case) starts no charging-time question ...
    decision = extractor.decide("FreeBuds Pro 3 加上充电盒总续航多长时间", second_reader=False)
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "huawei_freebuds_pro_3|battery_life|context=with_charging_case"
    # ... while a charging-time question after it still is one.
    decision = extractor.decide("AirPods Pro 2 充电盒充满要多久", second_reader=False)
    assert isinstance(decision, NoFingerprint), decision


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        # Colour names and system names from the catalog's own spec texts.
        ("华为FreeBuds Pro 3 有星河蓝吗", "huawei_freebuds_pro_3|colors|"),
        ("MacBook Air M3 是 macOS Sonoma 吗", "macbook_air_m3|operating_system|"),
    ],
)
def test_catalog_spec_texts_are_weak_cues(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert rules_cid(extractor, text) == cid


def test_a_common_word_among_spec_texts_is_no_cue(extractor: SemanticExtractor) -> None:
    # 黑色 / black are words, not names: no cue of their own.
    labels = {label for phrase, label in extractor._lexicon.attribute_phrases if phrase == "黑色"}
    assert not any(label.startswith("~colors") for label in labels)


def test_a_cue_that_modifies_an_edition_word_is_no_cue(extractor: SemanticExtractor) -> None:
    # 焕新 (heard as the exchange word 换新) names an edition in 焕新版.
    assert cid_of(extractor.decide("焕新版Model 3是哪天上市的")) == "tesla_model_3|release_date|"
    # 版本 is a word of its own: "存储版本" keeps its storage cue.
    assert cid_of(extractor.decide("小米14一共几种存储版本")) == "xiaomi_14|storage|"


def test_words_the_catalog_writes_are_understood(extractor: SemanticExtractor) -> None:
    # "usb" is in the catalog's texts (USB-C cable), so it is no misspelt variant word.
    decision = extractor.decide("Xiaomi 14 with usb cable weight")
    assert not (isinstance(decision, NoFingerprint) and "usb" in decision.reason)
    # A word neither the catalog nor English knows still ends in no fingerprint.
    decision = extractor.decide("Xiaomi 14 prx weight")
    assert isinstance(decision, NoFingerprint)


def test_how_much_before_a_camera_word_is_no_price(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("mate 60 pro telephoto how much zoom")
    assert not (isinstance(decision, Fingerprint) and decision.attribute == "price")


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The negation before 加盒子 is not the negation of the 听歌 after it.
        (
            "airpods pro 2 不加盒子听歌能用几个小时",
            "airpods_pro_2|battery_life|context=audio_playback",
        ),
        (
            "airpods pro 2 不带充电盒 听音乐多久",
            "airpods_pro_2|battery_life|context=audio_playback",
        ),
        # An attribute word that is also a sales word, next to another cue of the same
        # attribute, is the attribute's word.
        ("iphone 15 pro promotion refresh rate?", "iphone_15_pro|refresh_rate|"),
        # Everyday policy wording.
        ("when the price went down can i get the difference back", "price_protection"),
        ("is paying over months possible", "installment"),
        ("mate 60 pro 开箱里面有哪些配件", "huawei_mate_60_pro|in_box|"),
    ],
)
def test_negations_attribute_words_and_policy_wording_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    decision = extractor.decide(question)
    if "|" not in cid:  # a store-wide policy: its attribute
        assert isinstance(decision, Fingerprint), decision
        assert decision.attribute == cid
        return
    assert cid_of(decision) == cid, decision


@pytest.mark.parametrize(
    "question", ["保修期内手机坏了去哪修", "within the warranty period where do i get it repaired"]
)
def test_a_cue_in_a_time_frame_dominates_no_other(
    extractor: SemanticExtractor, question: str
) -> None:
    # The warranty period says when; where to repair is asked: never the warranty key.
    decision = extractor.decide(question)
    assert not (isinstance(decision, Fingerprint) and decision.attribute == "warranty"), decision


@pytest.mark.parametrize("question", ["还在保修期内吗", "坏了能保修吗"])
def test_a_warranty_question_alone_stays_one(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "warranty"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # Storage with its unit written out.
        ("galaxy s24 ultra 512 gigabytes how much", "samsung_galaxy_s24_ultra|price|storage=512GB"),
        ("iphone 15 pro with one terabyte, price?", "iphone_15_pro|price|storage=1TB"),
        # 比较多 / 比较少: "fairly much", a clause about the asker, not a comparison.
        ("iphone 15电池多大 我平时刷视频比较多", "iphone_15|battery_capacity|"),
        ("iphone 15电池多大 我平时刷视频比较少", "iphone_15|battery_capacity|"),
        # 比较 before an adjective anywhere in the question: "fairly", no comparison.
        ("小米14机身长度多少mm 我的口袋比较小", "xiaomi_14|dimensions|"),
        # A storage the asker rules out (不够, not enough) is no second value.
        ("小米14 512g多少钱 256不够用", "xiaomi_14|price|storage=512GB"),
        ("xiaomi 14 price for 512gb, since 256 is not enough", "xiaomi_14|price|storage=512GB"),
        # get / buy someone a product: who it is for, not whose it is.
        ("getting my sister the xiaomi 14, what does it cost", "xiaomi_14|price|"),
        ("buying my son a galaxy s24, how much is it", "samsung_galaxy_s24|price|"),
        # What the asker bought, in a clause of its own: a product spec is everyone's.
        ("小米14重多少克 我买了个手机壳", "xiaomi_14|weight|"),
        # Everyday words.
        ("does the xiaomi 14 come with a power brick", "xiaomi_14|in_box|"),
        ("what macos does the macbook air m3 ship with", "macbook_air_m3|operating_system|"),
        ("xiaomi 14 price in rmb", "xiaomi_14|price|"),
        ("macbook air m3 high refresh promotion?", "macbook_air_m3|refresh_rate|"),
    ],
)
def test_spelt_out_storage_beneficiaries_and_everyday_words_read(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "key"),
    [
        # A relative as the one asking, wanting or considering: the answer is for them.
        ("my mum wants to know how heavy the xiaomi 14 is", "xiaomi_14|weight|"),
        ("my brother's looking at the galaxy s24, which chip is in it", None),
        ("my uncle asked whether the galaxy s24 is waterproof", None),
        # "now" beside a fixed spec.
        ("小米14现在出厂是什么系统", "xiaomi_14|operating_system|"),
        ("how heavy is the galaxy s24 now", "samsung_galaxy_s24|weight|"),
        # Everyday policy wording, by co-occurring words.
        ("how long is the galaxy s24 covered if it stops working", None),
        ("what cards do you guys take", "null|payment_methods|"),
        ("which ways can we pay", "null|payment_methods|"),
        ("how many working days does it take for an order to arrive", "null|delivery_time|"),
        ("how long till the package gets to us", "null|delivery_time|"),
        ("will you give back the difference if the price falls", "null|price_protection|"),
        ("可以按月付吗", "null|installment|"),
        # Playback services name their context.
        (
            "how many hours of youtube does the galaxy s24 last",
            "samsung_galaxy_s24|battery_life|context=video_playback",
        ),
        (
            "小米14刷b站能用多久",
            "xiaomi_14|battery_life|context=video_playback",
        ),
        (
            "freebuds pro 3 how long with spotify",
            "huawei_freebuds_pro_3|battery_life|context=audio_playback",
        ),
        # Negated participles, a broken seal, a terabyte, incl., hrs, 啥.
        (
            "can the freebuds pro 3 go back once unsealed",
            "huawei_freebuds_pro_3|return_policy|item_state=opened",
        ),
        (
            "return policy if the seal is broken",
            "null|return_policy|item_state=opened",
        ),
        ("iphone 16 pro with a terabyte, how much", "iphone_16_pro|price|storage=1TB"),
        (
            "freebuds pro 3 battery incl. the case",
            "huawei_freebuds_pro_3|battery_life|context=with_charging_case",
        ),
        ("how many hrs does the galaxy s24 last", "samsung_galaxy_s24|battery_life|"),
        ("小米14啥时候发布的", "xiaomi_14|release_date|"),
        # What is in the box, with the product inside the phrase.
        ("what's in the galaxy s24 box", "samsung_galaxy_s24|in_box|"),
        ("will the xiaomi 14 come with a charger", "xiaomi_14|in_box|"),
        # 会不会 + a damage verb beside water or sweat asks how resistant it is.
        ("小米14淋雨会不会坏 防水等级是多少", "xiaomi_14|water_resistance|"),
        ("airpods pro 2 游泳会不会进水", "airpods_pro_2|water_resistance|"),
        # The battery, the product between, then "covered": the battery's warranty.
        (
            "is the battery pack of the tesla model y covered for 8 years",
            "tesla_model_y|warranty|coverage=battery",
        ),
        ("xiaomi 14 what is included with it", "xiaomi_14|in_box|"),
        # Chat word order: the attribute noun first, then the question words.
        ("xiaomi 14 screen how big", "xiaomi_14|screen_size|"),
        ("galaxy s24 battery how long", "samsung_galaxy_s24|battery_life|"),
        ("xiaomi 14 what system does it come with", "xiaomi_14|operating_system|"),
        # A cue inside a time frame says when; the other cue says what is asked.
        ("保修期内屏幕碎了怎么修", "null|after_sales_service|"),
        # Who pays the shipping of a return is the return policy's.
        ("没拆封的退货运费谁承担", "null|return_policy|item_state=unopened"),
        # A trim's head noun is part of the variant's name, not a system version.
        ("tesla model 3 performance version range", "tesla_model_3|range|trim=performance"),
    ],
)
def test_evaluative_choices_present_time_and_policy_wording_read(
    extractor: SemanticExtractor, question: str, key: str | None
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    if key is not None:
        assert decision.cid == key


def test_beneficiary_questions_read_their_attribute(extractor: SemanticExtractor) -> None:
    assert _key(extractor, "my brother's looking at the galaxy s24, which chip is in it") == (
        "samsung_galaxy_s24|processor|"
    )
    assert _key(extractor, "how long is the galaxy s24 covered if it stops working") == (
        "samsung_galaxy_s24|warranty|"
    )


@pytest.mark.parametrize(
    "question",
    [
        # An activity the vocabulary cannot map in a battery question: abstain.
        "how many hours of zoom calls does the iphone 16 last",
        "苹果16玩原神能撑几个小时",
    ],
)
def test_unmapped_activity_abstains(extractor: SemanticExtractor, question: str) -> None:
    assert isinstance(extractor.decide(question), NoFingerprint), extractor.decide(question)


@pytest.mark.parametrize(
    ("question", "key"),
    [
        # The other side: hypothetical or general wording of the same topics is the policy.
        ("when do replacements usually arrive", "null|exchange_policy|"),
        ("能用花呗付款吗", "null|payment_methods|"),
        ("如果我拆封的话还能退吗", "null|return_policy|item_state=opened"),
        # What a product comes with, a fee that may be charged, and a question the asker
        # only wants answered are no past events of theirs.
        ("does the galaxy s24 still come with a charger", "samsung_galaxy_s24|in_box|"),
        ("分期会被扣手续费吗", "null|installment|"),
        ("我想问一下买了7天还能退吗", "null|return_policy|"),
        # Negation reaches over a focus adverb; without it the value stands.
        (
            "if we haven't even opened the seal can we return it",
            "null|return_policy|item_state=unopened",
        ),
        ("if i have even opened it can i return it", "null|return_policy|item_state=opened"),
        # Dead on arrival is a quality problem: a new unit, the exchange rule.
        ("if the watch arrives damaged, do i get a new unit", "null|exchange_policy|"),
        ("the watch broke after a year, where do i get it repaired", "null|after_sales_service|"),
        # Everyday policy wording.
        ("could i split the cost across several months", "null|installment|"),
        ("can i pay it little by little", "null|installment|"),
        ("can i pay the driver with card at the door", "null|payment_methods|"),
        ("will you charge me anything to ship it", "null|shipping_fee|"),
        ("what if it gets cheaper after i order, can i get money back", "null|price_protection|"),
        (
            "if it goes cheaper a few days after i pay, is there compensation",
            "null|price_protection|",
        ),
        # Dimensions: two measures asked together; storage asked of the disk.
        ("how high and wide is the xiaomi 14", "xiaomi_14|dimensions|"),
        ("小米14长宽是多少", "xiaomi_14|dimensions|"),
        ("小米14固态有多大", "xiaomi_14|storage|"),
        # How many times a second the screen refreshes (the reader learns the form too).
        ("macbook air m3 一秒刷新多少次", "macbook_air_m3|refresh_rate|"),
        # The screen alone beside a product (and a case size) asks its size.
        ("apple watch series 9 45mm display", "apple_watch_series_9|screen_size|case_size=45mm"),
        # A value to confirm: coordinated, approximate, or unit first.
        ("is the xiaomi 14 screen 120hz or only 90?", "xiaomi_14|refresh_rate|"),
        ("小米14电池是4600多毫安吗", "xiaomi_14|battery_capacity|"),
        # Apostrophe-less contractions and laughter are understood.
        ("how heavy is the xiaomi 14 lol i dont want a brick", "xiaomi_14|weight|"),
        ("how heavy is the xiaomi 14 hahaha", "xiaomi_14|weight|"),
        # "not a deal" sets the cue aside; a deal asked about stays real-time (below).
        ("xiaomi 14 price, the normal one, not a discount", "xiaomi_14|price|"),
        # Present-time "these days" beside a fixed spec is read past.
        ("what processor does the xiaomi 14 use these days", "xiaomi_14|processor|"),
        # A name ending in its own chip code names the chip: the noun after it says
        # which product, another cue says what is asked; alone it stays the question.
        ("macbook air m3芯片的售价", "macbook_air_m3|price|"),
        ("macbook air m3芯片是什么", "macbook_air_m3|processor|"),
        ("apple watch s9的芯片是多少呢", "apple_watch_series_9|processor|"),
        # "1个T" (a measure word before the unit) and "the terabyte model" are 1 TB.
        ("苹果16pro 1个t多少钱", "iphone_16_pro|price|storage=1TB"),
        ("iphone 16 pro, the terabyte model, how much", "iphone_16_pro|price|storage=1TB"),
        # ... a rounded figure of its own value is the product itself.
        ("13寸的macbook air m3屏幕尺寸是多少", "macbook_air_m3|screen_size|"),
        # A size word before a bare number of one value of the key is that value.
        ("华为手表gt4 小号41 价格", "huawei_watch_gt_4|price|case_size=41mm"),
        ("apple watch series 9 size 45 price", "apple_watch_series_9|price|case_size=45mm"),
        # "on a full charge" is how long it lasts, not how long it takes to charge.
        (
            "iphone 16 pro playing music, how long on one full charge?",
            "iphone_16_pro|battery_life|context=audio_playback",
        ),
        # A beneficiary at the end of a clause is not the asker's purchase.
        ("小米14多少钱，给我老婆买的", "xiaomi_14|price|"),
        # 换机 (switching phones) is no exchange.
        ("小米14卖多少，我打算换机", "xiaomi_14|price|"),
    ],
)
def test_dead_on_arrival_coordinated_and_approximate_values_read(
    extractor: SemanticExtractor, question: str, key: str | None
) -> None:
    assert _key(extractor, question) == key


@pytest.mark.parametrize(
    ("question", "key"),
    [
        # A relative who only gives the context of a spec question.
        (
            "my uncle only uses android, what os does the galaxy s24 ship with?",
            "samsung_galaxy_s24|operating_system|",
        ),
        ("my sister has tiny hands, how heavy is the xiaomi 14?", "xiaomi_14|weight|"),
        ("my cousin's moving abroad soon, how heavy is the xiaomi 14?", "xiaomi_14|weight|"),
        (
            "My aunt wants a big phone, so what's the screen size of the Xiaomi 14?",
            "xiaomi_14|screen_size|",
        ),
        # The key's own words pick the variant whose price is asked.
        (
            "my cousin needs the biggest storage, the 512 GB galaxy s24 ultra. what's the msrp?",
            "samsung_galaxy_s24_ultra|price|storage=512GB",
        ),
        # Everyday words for a charging method the vocabulary does not list: a hint of
        # a method, so no fingerprint rather than the unconstrained answer.
        ("xiaomi 14 plugged in charging, how many watts max?", None),
        ("model 3 at fast chargers, what's the peak charging power?", None),
        # A gift the asker gives is a purpose, not a promotion.
        ("what does the xiaomi 14 cost? it's a gift for my teacher", "xiaomi_14|price|"),
        # A refresh rate written out as a count per second.
        (
            "does the galaxy s24 screen refresh 120 times a second?",
            "samsung_galaxy_s24|refresh_rate|",
        ),
        # A British spelling of a known English word is understood.
        ("How heavy is the Xiaomi 14? I'm analysing a few phones", "xiaomi_14|weight|"),
        # A written abbreviation of a word of the vocabulary.
        ("mate 60 warranty, how many yrs?", "huawei_mate_60|warranty|"),
        # Things bought from the shop in general are nobody's purchase.
        ("is the warranty the same for items purchased at your website?", "null|warranty|"),
        # Everyday policy wording: a price drop after the purchase, how long until an
        # order gets to people.
        ("what if it drops in price and gets cheaper days after buying?", "null|price_protection|"),
        ("how long does it normally take before parcels get to customers?", "null|delivery_time|"),
        # "enough" after a property adjective of the vocabulary asks its rating.
        (
            "is the galaxy s24 water resistant enough for snorkelling?",
            "samsung_galaxy_s24|water_resistance|",
        ),
        # "多少g" asks a weight or a storage size: two readings, no fingerprint (guard:
        # the second reader vetoed the price the rules read there); a letter no value
        # ends in is the unit asked.
        ("小米14多少g", None),
        ("小米14充电多少w", "xiaomi_14|charging_power|"),
    ],
)
def test_variant_keys_charging_words_and_written_units_read(
    extractor: SemanticExtractor, question: str, key: str | None
) -> None:
    assert _key(extractor, question) == key


def test_attribute_words_match_homophones_of_any_tone(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("苹果15官方包修期是几年")  # 包 bao1 typed for 保 bao3
    assert isinstance(decision, Fingerprint)
    assert decision.cid == "iphone_15|warranty|"
    # A bypass word is not attribute vocabulary: 卖完 (sold out) stays itself.
    assert isinstance(extractor.decide("苹果15卖完了吗"), Bypass)


def test_available_colours_stay_a_spec_question(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("Which colors are available for the iPhone 15?")
    assert isinstance(decision, Fingerprint), decision
    assert decision.cid == "iphone_15|colors|"


@pytest.mark.parametrize(
    "question",
    [
        "BYD Han 上牌费多少",
        "Model 3 家用充电桩安装要多少钱",
        "installation cost of a home charger for the Model Y",
    ],
)
def test_registration_and_installation_costs_are_outside_the_vocabulary(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, NoFingerprint)
    assert decision.reason == "asks about something outside the attribute vocabulary"
