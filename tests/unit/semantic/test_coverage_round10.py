"""Coverage round 10 (issue 15): a name word with a letter typed twice or its x written as
ks, the product's own value stated anywhere in the question to be confirmed, and a Chinese
numeral before a unit word of the vocabulary. Questions written for these tests, not taken
from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.spelling import SpellingCorrector
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # A name word with one letter typed twice, or x spelt out as it sounds (ks).
        ("iphone 15 pro maxx how heavy", "iphone_15_pro_max|weight|"),
        ("iphone 16 proo screen size", "iphone_16_pro|screen_size|"),
        ("mate 60 proo weight", "huawei_mate_60_pro|weight|"),
        ("what chip is in the iphone 15 pro maks", "iphone_15_pro_max|processor|"),
        # The product's own value, stated after the attribute word, not after "is".
        ("airpods pro 2 rrp 1899 right?", "airpods_pro_2|price|"),
        ("is the airpods pro 2 list price 1899", "airpods_pro_2|price|"),
        # A Chinese numeral before a unit word of the vocabulary is a measure.
        ("x1 carbon大概二公斤吗", "thinkpad_x1_carbon|weight|"),
        ("x1 carbon是不是一公斤多一点", "thinkpad_x1_carbon|weight|"),
    ],
)
def test_now_read(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        # A typo two letters away, or a plural, stays unread.
        "iphone 15 pro maxxx price",
        "iphone 15 pro maxs price",
        # A number that is not the product's own value may name a variant: abstain.
        "airpods pro 2 rrp 1999 right?",
        "airpods pro 2 price 1899 or 1999?",
        # A price by storage has no one own value to confirm.
        "galaxy s24 ultra list price 9999 right?",
        # A numeral before a time word stays a count (no measure read from it).
        "小米14充电一小时能充满吗",
    ],
)
def test_near_cases_stay_unread(extractor: SemanticExtractor, question: str) -> None:
    assert decided_cid(extractor, question) is None


def test_a_variant_we_do_not_sell_stays_unknown(extractor: SemanticExtractor) -> None:
    # maks is max, and the iPhone 16 has no Pro Max in the catalog.
    assert decided_bypass(extractor, "how heavy is the iphone 16 pro maks") == "unknown_product"


def test_doubled_letter_and_spelt_out_x_need_one_fit() -> None:
    corrector = SpellingCorrector(["Max", "Pro", "Plus"], ["Phone Max", "Phone Pro", "Plus"])
    assert corrector.correct("phone maxx") == "phone max"
    assert corrector.correct("phone maks") == "phone max"
    assert corrector.correct("phone pluss") == "phone plus"
    # "matt": mat with its t doubled, and matte with its e dropped; two fits, left alone
    two = SpellingCorrector(["Mat", "Matte"], ["Phone Mat", "Phone Matte"])
    assert two.correct("phone matt") == "phone matt"
