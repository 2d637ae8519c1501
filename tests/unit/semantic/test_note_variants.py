"""Variants a catalog note rules out: a product whose note names one variant of a kind
(a charging case's connector, a watch case's material, its connectivity) is that variant,
and a question naming another variant of the kind asks about a product the catalog does
not describe. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.note_variants import NoteVariants
from tests.unit.semantic.decisions import decided_bypass
from tests.unit.semantic.decisions import decided_cid as _key

FAMILIES = {
    "connector": [["usb-c", "type-c"], ["lightning"]],
    "case_material": [["aluminium", "铝合金"], ["stainless steel", "不锈钢"], ["titanium"]],
}


def test_a_variant_the_note_does_not_name_is_ruled_out() -> None:
    variants = NoteVariants(FAMILIES, {"buds": "USB-C case version", "watch": "aluminium case"})
    assert variants.ruled_out("buds", "buds lightning 续航") == "connector"
    assert variants.ruled_out("buds", "buds usb c 续航") is None  # the note's own, spaced
    assert variants.ruled_out("watch", "watch 不锈钢 多少钱") == "case_material"
    assert variants.ruled_out("watch", "watch 铝合金 多少钱") is None
    # Latin forms are whole words; a product without a note rules nothing out.
    assert variants.ruled_out("watch", "watch titaniumx") is None
    assert variants.ruled_out("phone", "phone lightning") is None
    assert variants.ruled_out(None, "lightning") is None


def test_a_note_naming_several_variants_of_a_kind_rules_none_out() -> None:
    variants = NoteVariants(FAMILIES, {"watch": "aluminium or titanium case"})
    assert variants.ruled_out("watch", "watch stainless steel price") is None


@pytest.mark.parametrize(
    "question",
    [
        "AirPods Pro 2 with the lightning case, battery life?",
        "AirPods Pro 2 闪电接口版 多少钱",
        "Apple Watch Series 9 stainless steel weight",
        "苹果手表S9 不锈钢表壳 多重",
        "Apple Watch S9 cellular 45mm price",
        "苹果手表S9 蜂窝版 续航",
    ],
)
def test_another_variant_than_the_catalog_describes_is_an_unknown_product(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "unknown_product"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("AirPods Pro 2 USB-C 续航多久", "airpods_pro_2|battery_life|"),
        ("iPhone 15 Pro 钛金属 多重", "iphone_15_pro|weight|"),
    ],
)
def test_the_described_variant_and_products_without_a_note_keep_their_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert _key(extractor, question) == cid


def test_the_described_variant_is_found_where_written() -> None:
    variants = NoteVariants(FAMILIES, {"buds": "USB-C case version", "watch": "aluminium case"})
    assert variants.described_spans("buds", "buds usb c battery") == [(5, 10)]
    assert variants.described_spans("watch", "watch lightning") == []
    assert variants.described_spans("phone", "phone usb-c") == []
    assert variants.described_spans(None, "usb-c") == []


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        (
            "how much is the Apple Watch Series 9 (GPS) 41mm",
            "apple_watch_series_9|price|case_size=41mm",
        ),
        (
            "Apple Watch Series 9 aluminium model, how heavy is the 45mm",
            "apple_watch_series_9|weight|case_size=45mm",
        ),
    ],
)
def test_the_variant_the_note_describes_is_an_understood_word(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    # The note says the catalog lists the GPS, aluminium watch: its words name that product.
    assert _key(extractor, question) == cid
