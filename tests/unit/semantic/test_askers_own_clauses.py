"""An English clause about someone of the asker's ("my son has to take his laptop") tells
their situation as a first-person clause does: a spec of a named product is answered, a
policy after it stays personal. Questions written for these tests, not taken from any
labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


def test_a_relatives_situation_leaves_the_spec_asked(extractor: SemanticExtractor) -> None:
    question = "my son has to take his laptop to school daily. how heavy is the macbook air m3?"
    assert decided_cid(extractor, question) == "macbook_air_m3|weight|"


def test_set_aside_but_an_order_of_theirs_stays_personal(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(
            extractor,
            "my son has to take his laptop to school daily. how heavy is the macbook air m3?",
        )
        == "macbook_air_m3|weight|"
    )
    question = "my wife's order hasn't arrived. what's the delivery time?"
    assert decided_bypass(extractor, question) == "personal"
