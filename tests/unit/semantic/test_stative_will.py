""" "will … fit" asks what the product's size allows now, as "will it last" and "will it
ship" do: not a forecast. "will the price drop" still looks ahead. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_will_fit_in_a_side_clause_is_not_a_forecast(extractor: SemanticExtractor) -> None:
    question = (
        "checking which laptop will fit my tiny desk drawer. how thick is the macbook air m3?"
    )
    assert decided_cid(extractor, question) == "macbook_air_m3|dimensions|"


def test_will_with_a_change_still_looks_ahead(extractor: SemanticExtractor) -> None:
    assert decided_bypass(extractor, "will the macbook air m3 get cheaper soon?") == "predict"
