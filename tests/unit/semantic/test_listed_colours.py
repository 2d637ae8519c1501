"""Colours a product is not sold in: a hue named beside a product's name that none of its
catalog colours has makes the question one about a variant the catalog does not list;
its own colours (read with the same hue words: 南糯紫 is purple), colours asked about, and
colours of other things stay as they are. Questions written for these tests, not taken
from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.colours import ListedColours
from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass
from tests.unit.semantic.decisions import decided_cid as _key

HUES = {"purple": ["紫", "purple"], "black": ["黑", "black"], "gold": ["金", "gold"]}
SPECS = {
    "phone": {"colors": {"value": ["雅丹黑 Black", "南糯紫 Purple"]}},
    "buds": {"colors": {"value": ["黑色 Black"]}},
    "car": {"range": {"value": 500, "unit": "km"}},
}


def test_a_hue_beside_the_name_that_no_listed_colour_has_is_unlisted() -> None:
    colours = ListedColours(HUES, SPECS)
    assert colours.unlisted("buds", "buds 紫色 多少钱", lambda: [(0, 4)]) == "purple"
    assert colours.unlisted("buds", "紫色的buds 多少钱", lambda: [(3, 7)]) == "purple"
    assert colours.unlisted("buds", "a purple buds", lambda: [(9, 13)]) == "purple"
    # The product's own hue, a hue far from the name, a product without colours: none.
    assert colours.unlisted("phone", "phone 紫色 多少钱", lambda: [(0, 5)]) is None
    assert colours.unlisted("buds", "buds 多少钱 我的包是紫色的", lambda: [(0, 4)]) is None
    assert colours.unlisted("car", "car 紫色", lambda: [(0, 3)]) is None
    # A lone 紫 is part of names (秘矿紫): only 紫色 is a colour said of a product.
    assert colours.unlisted("buds", "buds 紫 多少钱", lambda: [(0, 4)]) is None


@pytest.mark.parametrize(
    "question", ["小米14 紫色 多少钱", "紫色的小米14多重", "a purple xiaomi 14, battery life?"]
)
def test_a_colour_the_product_is_not_sold_in_is_an_unknown_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14 白色 多少钱", "xiaomi_14|price|"),
        ("Mate 60 紫色 多重", "huawei_mate_60|weight|"),
        ("小米14 有紫色吗", "xiaomi_14|colors|"),
    ],
)
def test_listed_and_asked_colours_keep_their_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert _key(extractor, question) == cid


def test_a_word_that_holds_a_hue_character_but_names_none_gives_no_hue() -> None:
    # 钛金属 is titanium metal, not gold: a gold one of this phone is not listed.
    specs = {"phone": {"colors": {"value": ["原色钛金属 Natural Titanium"]}}}
    colours = ListedColours(HUES, specs, ["金属"])
    assert colours.unlisted("phone", "phone 金色 多少钱", lambda: [(0, 5)]) == "gold"
    assert ListedColours(HUES, specs).unlisted("phone", "phone 金色", lambda: [(0, 5)]) is None


def test_a_modifier_and_a_hue_is_a_colour_word_and_a_catalog_stem_names_its_line() -> None:
    hues = {**HUES, "blue": ["蓝", "blue"], "grey": ["灰", "grey"]}
    specs = {"phone": {"colors": {"value": ["钛灰 Titanium Grey", "钛黑 Titanium Black"]}}}
    colours = ListedColours(hues, specs)
    # 钛蓝 is a blue in the line the catalog names 钛灰 and 钛黑; 钛灰 is listed.
    assert colours.unlisted("phone", "phone 钛蓝 多少钱", lambda: [(0, 5)]) == "blue"
    assert colours.unlisted("phone", "phone 钛灰 多少钱", lambda: [(0, 5)]) is None
    # 天蓝色 opens with a modifier; 有蓝色吗 asks whether there is one.
    assert colours.unlisted("phone", "phone 天蓝色 多少钱", lambda: [(0, 5)]) == "blue"
    assert colours.unlisted("phone", "phone 有蓝色吗", lambda: [(0, 5)]) is None


def test_the_colour_a_product_comes_in_follows_in() -> None:
    colours = ListedColours(HUES, SPECS)
    assert (
        colours.unlisted("buds", "how heavy are the buds in purple", lambda: [(18, 22)]) == "purple"
    )
    assert colours.unlisted("phone", "the phone in purple", lambda: [(4, 9)]) is None


def test_a_colour_word_of_several_characters_needs_no_colour_suffix() -> None:
    colours = ListedColours({**HUES, "gold": ["金", "gold", "土豪金"]}, SPECS)
    assert colours.unlisted("buds", "buds 土豪金 多少钱", lambda: [(0, 4)]) == "gold"
    assert colours.unlisted("buds", "buds 金 多少钱", lambda: [(0, 4)]) is None
