""" "my husband said …" opens what someone of the asker's claims, not something the asker
owns: the product or device word after it is not "my earbuds". A "my order" inside the
claim stays personal. Questions written for these tests, not taken from any labelled
set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_a_relatives_claim_about_a_product_is_not_a_possession(
    extractor: SemanticExtractor,
) -> None:
    question = "my sister said earbuds hurt her ears, what's the battery life of the airpods pro 2?"
    assert decided_cid(extractor, question) == "airpods_pro_2|battery_life|"


def test_a_relatives_claim_about_a_brand_is_not_a_possession(
    extractor: SemanticExtractor,
) -> None:
    question = "my dad says apple is pricey, how heavy is the macbook air m3?"
    assert decided_cid(extractor, question) == "macbook_air_m3|weight|"


def test_an_order_inside_the_claim_stays_personal(extractor: SemanticExtractor) -> None:
    question = "my dad says my order was lost, what's the delivery time?"
    assert decided_bypass(extractor, question) == "personal"
