"""帮 before someone of the asker's and a verb of shopping ending the clause (我在帮我姐看)
says who the product is for: no case of the asker's own, so even a price is answered.
帮我查…, and 帮我妹买的… (a purchase made) stay personal. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("我在帮我姐看，苹果15 128g多少钱", "iphone_15|price|storage=128GB"),
        ("小米14 512g的官方价多少，我在帮我们部门挑", "xiaomi_14|price|storage=512GB"),
    ],
)
def test_shopping_for_someone_is_no_personal_case(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize("question", ["帮我查一下我的订单", "帮我妹买的苹果15坏了能修吗"])
def test_set_aside_but_help_me_and_a_purchase_made_stay_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert (
        decided_cid(extractor, "我在帮我姐看，苹果15 128g多少钱") == "iphone_15|price|storage=128GB"
    )
    assert decided_bypass(extractor, question) == "personal"
