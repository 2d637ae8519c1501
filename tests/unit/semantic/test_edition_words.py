"""Edition words: an edition word the catalog does not list makes no fingerprint, an
edition word right after a variant word names that variant (kept if sold, unknown if
not), and the Chinese edition words for a larger or enhanced model after a catalog name
name a variant the catalog does not sell. Questions written for these tests, not taken
from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, NoFingerprint
from services.core.semantic.transliteration import edition_words
from tests.unit.semantic.decisions import cid_of, decided_bypass, decided_cid


@pytest.mark.parametrize("question", ["Model Y焕新版发布日期是哪天", "三星S24 纪念版 重量多少"])
def test_an_unlisted_edition_gets_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("苹果15出厂是哪一版系统", "iphone_15|operating_system|"),  # which edition: a question
        ("Model Y发布日期是哪天", "tesla_model_y|release_date|"),
    ],
)
def test_asking_which_edition_is_no_edition_name(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


def test_edition_words_are_what_one_variant_suffix_adds_to_another() -> None:
    assert edition_words(["pro", "pro版", "max", "max版", "pro max", "dm", "dm i"]) == {"版"}
    assert edition_words(["青春版", "加强版", "专业加强版"]) == frozenset()


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("苹果16 pro版有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16pro版有几种颜色", "iphone_16_pro|colors|"),
        ("iphone 16 pro版有几种颜色", "iphone_16_pro|colors|"),
        ("苹果15 pro max版颜色", "iphone_15_pro_max|colors|"),
        ("华为mate 60 pro版多少钱", "huawei_mate_60_pro|price|"),
        ("三星s24 ultra版多少钱", "samsung_galaxy_s24_ultra|price|"),
        ("苹果16普罗版有几种颜色", "iphone_16_pro|colors|"),
        # the words that already worked keep working
        ("苹果16 pro有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16 pro款有几种颜色", "iphone_16_pro|colors|"),
        ("苹果16标准版有几种颜色", "iphone_16|colors|"),
        ("华为mate60专业版多少钱", "huawei_mate_60_pro|price|"),
        ("model 3 长续航版 续航", "tesla_model_3|range|trim=long_range"),
        ("汉 EV 续航", "byd_han|range|"),
        ("汉 EV版 续航", "byd_han|range|"),
    ],
)
def test_a_sold_variant_with_its_edition_word_keeps_its_name(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "苹果16迷你版有几种颜色",
        "苹果16迷你有几种颜色",
        "iphone 16 mini版颜色",
        "苹果16 plus版多少钱",
        "苹果16 pro max版颜色",
        "小米14 ultra版多少钱",
    ],
)
def test_a_variant_not_sold_with_its_edition_word_stays_unknown(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"


@pytest.mark.parametrize(
    "question",
    [
        "苹果16加大版多少钱",
        "苹果15加大版电池多大",
        "华为mate60加强版重量多少",
        "华为六十专业加强版屏幕几寸",
        "小米14加大版有什么颜色",
        "三星s24加强版电池多少毫安",
        "比亚迪汉加强版续航多少",
        "特斯拉model3加大版多重",
    ],
)
def test_an_edition_word_after_a_name_is_a_variant_we_do_not_sell(
    extractor: SemanticExtractor, question: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "unknown_product"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The same names without the edition word keep their fingerprint.
        ("苹果16多少钱", "iphone_16|price|"),
        ("华为mate60重量多少", "huawei_mate_60|weight|"),
        ("比亚迪汉续航多少", "byd_han|range|"),
        # A variant nickname the catalog does sell still names it.
        ("华为六十专业版屏幕几寸", "huawei_mate_60_pro|screen_size|"),
    ],
)
def test_names_without_an_edition_word_keep_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_note_editions() -> None:
    from services.core.semantic.products import note_editions

    assert note_editions("2023 refresh (焕新版), China-market trims") == ("焕新版", "焕新")
    assert note_editions("GPS, aluminium case") == ()


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # the product's own edition word beside its name is part of the name, no trim
        ("Model 3 焕新版重量多少", "tesla_model_3|weight|"),
        ("焕新版 model 3 有多重", "tesla_model_3|weight|"),
        # the edition word and the product's model number name it
        ("焕新3车身多重", "tesla_model_3|weight|"),
        ("特斯拉焕新3的重量", "tesla_model_3|weight|"),
    ],
)
def test_edition_words(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert cid_of(extractor.decide(question)) == cid


def test_edition_word_is_no_typo(extractor: SemanticExtractor) -> None:
    # 焕新 (refreshed) is a word of the catalog's note, never respelt as 换新 (exchange)
    assert extractor.normaliser.normalise("焕新版续航") == "焕新版续航"
    assert cid_of(extractor.decide("焕新9多重")) is None  # no product of that number


@pytest.mark.parametrize(
    "question",
    ["Mate 60 Pro 卫星版 多重", "FreeBuds Pro 3 无线充版 多少钱", "小米14 快充版 电池多大"],
)
def test_an_edition_on_the_name_that_the_catalog_does_not_list_makes_no_key(
    extractor: SemanticExtractor, question: str
) -> None:
    assert isinstance(extractor.decide(question), NoFingerprint)


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("Mate60标准版多重", "huawei_mate_60|weight|"),
        ("小米14这款多重", "xiaomi_14|weight|"),
        ("iPhone 15 256G版 多少钱", "iphone_15|price|storage=256GB"),
    ],
)
def test_listed_editions_and_demonstratives_keep_their_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
