"""A thing named in a purpose clause (想配个…, 打算买个…, "want to buy a …") is why the
asker asks, not what: the attribute asked elsewhere wins where it dominates that thing's,
and with a price or only a weaker cue left the readings compete (no fingerprint).
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("打算另外配个充电器，iPhone 16 有线最大支持多少", "iphone_16|charging_power|method=wired"),
        (
            "I plan to buy an adapter, so what is the wired charging speed of iPhone 16",
            "iphone_16|charging_power|method=wired",
        ),
    ],
)
def test_the_attribute_asked_beats_the_thing_meant_to_be_bought(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert decided_cid(extractor, text) == cid


@pytest.mark.parametrize("text", ["想配个充电器 iPhone 16 多少钱", "准备买个充电头 iPhone 16 多少"])
def test_a_price_beside_the_thing_meant_to_be_bought_abstains(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_cid(extractor, text) is None


def test_the_thing_meant_is_still_asked_when_nothing_else_is(
    extractor: SemanticExtractor,
) -> None:
    assert decided_cid(extractor, "想配个充电器，iPhone 16 盒子里送不送") == "iphone_16|in_box|"


def test_a_before_buying_clause_sets_the_time_not_the_attribute(
    extractor: SemanticExtractor,
) -> None:
    assert decided_cid(extractor, "买充电器之前先问问 iPhone 16 最大功率") is None
    assert (
        decided_cid(extractor, "配充电器前问一下 iPhone 16 有线最高多少瓦")
        == "iphone_16|charging_power|method=wired"
    )
