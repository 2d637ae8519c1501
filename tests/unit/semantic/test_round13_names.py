"""Round 9, names (issue 15): a variant letter set apart by a space (S24 U), a series
word misspelt into another word glued to its model number (mote60), a name said size or
model code first (M3的13英寸MacBook Air), two aliases of one product that overlap
(ThinkPad X1 Carbon 2024款), a Chinese numeral after a series synonym before a lettered
model code (盖乐世二十四), a spoken number after a Latin synonym of a number head (i phone
fifteen), a Chinese name synonym in pinyin (aifeng), a generation said before the
variant word (三代pro), a droppable word before the number (手表系列9) and a numeral
that opens a function word (苹果一样吗). Questions written for these tests, not taken
from any labelled set; the camera catalog is invented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from services.semantic.loading import load_semantic_extractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


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
def test_round9_names_are_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
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
def test_round9_names_abstain(extractor: SemanticExtractor, question: str) -> None:
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
