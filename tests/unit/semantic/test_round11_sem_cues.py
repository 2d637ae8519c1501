"""Round 7 (issue 15), attribute cues, policy words, bypasses and the second reader: a
negation governs the value right after it, an attribute word that is also a bypass cue
beside another cue of its attribute, first-person past wording of orders and deposits,
everyday policy words, the gate's pattern scan, and what the second reader learns from
the catalog (its text values, unit names, units in notes, constraint words that imply an
attribute). Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor, _noted_units, _spec_value_texts
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.phrases import PhraseSet, first_characters
from tests.unit.semantic.decisions import cid_of


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The negation before 加盒子 is not the negation of the 听歌 after it.
        (
            "airpods pro 2 不加盒子听歌能用几个小时",
            "airpods_pro_2|battery_life|context=audio_playback",
        ),
        (
            "airpods pro 2 不带充电盒 听音乐多久",
            "airpods_pro_2|battery_life|context=audio_playback",
        ),
        # An attribute word that is also a sales word, next to another cue of the same
        # attribute, is the attribute's word.
        ("iphone 15 pro promotion refresh rate?", "iphone_15_pro|refresh_rate|"),
        # Everyday policy wording.
        ("when the price went down can i get the difference back", "price_protection"),
        ("is paying over months possible", "installment"),
        ("mate 60 pro 开箱里面有哪些配件", "huawei_mate_60_pro|in_box|"),
    ],
)
def test_cue_fingerprints(extractor: SemanticExtractor, question: str, cid: str) -> None:
    decision = extractor.decide(question)
    if "|" not in cid:  # a store-wide policy: its attribute
        assert isinstance(decision, Fingerprint), decision
        assert decision.attribute == cid
        return
    assert cid_of(decision) == cid, decision


def test_after_sales_and_returns_everyday_words(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("if the charger breaks down who repairs it")
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "after_sales_service"
    # Returns are a store-wide policy for phones: keyed without the product.
    decision = extractor.decide("if i open the galaxy s24 box can they go back")
    assert cid_of(decision) == "null|return_policy|item_state=opened", decision


@pytest.mark.parametrize(
    "question",
    [
        # The sales word stays a bypass beside another attribute's cue or alone.
        "iphone 15 pro promotion price",
        "is there a promotion on the iphone 15 pro",
    ],
)
def test_sales_word_stays_realtime(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "realtime"


@pytest.mark.parametrize(
    "question",
    [
        "我之前的订单开错发票了怎么办",
        "我昨天的快递能改时间吗",
        "we paid a deposit on a tesla model 3, can we change the wheels",
        "i placed an order for the xiaomi 14, can i add a case",
    ],
)
def test_first_person_past_wording_is_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    ("pattern", "first"),
    [
        ("abc", "a"),
        ("(?<![a-z])now", "n"),
        ("[§¤]\\s+x", "§¤"),
        ("(?:foo|bar)", "bf"),
        ("(a|bc)+d", "ab"),
    ],
)
def test_first_characters_of_led_patterns(pattern: str, first: str) -> None:
    assert first_characters(pattern) == frozenset(first)


@pytest.mark.parametrize("pattern", ["(^|x)y", "x?y", "\\d{8,}", ".foo", "(?i)abc", "a*b"])
def test_first_characters_unknown(pattern: str) -> None:
    assert first_characters(pattern) is None


def test_led_patterns_find_what_the_alternation_finds() -> None:
    patterns = [("(?<![a-z])now", "x"), ("(^|, )then", "x"), ("[§¤] i got", "x")]
    split = PhraseSet((), patterns, scan_led_patterns_alone=True)
    joined = PhraseSet((), patterns)
    for text in ("buy it now", "then what", "the § i got", "nothing here", "ok, then"):
        assert bool(split.find(text, frozenset())) == bool(joined.find(text, frozenset()))


def test_reader_learns_catalog_values_and_noted_units() -> None:
    catalog = {
        "products": [
            {
                "id": "p1",
                "category": "phone",
                "specs": {
                    "processor": {"value": "Zeta X9"},
                    "colors": {"value": ["Red", "Blue"]},
                    "in_box": {"value": ["30W charger"]},
                    "warranty": {"value": 2, "unit": "year", "note": "or 50,000 km"},
                },
            }
        ]
    }
    assert _spec_value_texts(catalog) == {"processor": ["zeta x9"]}
    assert _noted_units(catalog, frozenset({"km"})) == {"km": {"warranty"}}


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        # A catalog value asked to be confirmed: the reader knows it as the attribute's.
        ("iphone 16 是A18芯片吗", "processor"),
        ("iphone 16 是不是A18", "processor"),
        # The catalog's unit of a watch's battery life, written by its name.
        ("huawei watch gt 4 normal use how many days", "battery_life"),
    ],
)
def test_reader_agrees_on_stated_values(
    extractor: SemanticExtractor, question: str, attribute: str
) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == attribute


@pytest.mark.parametrize(
    "question", ["保修期内手机坏了去哪修", "within the warranty period where do i get it repaired"]
)
def test_a_cue_in_a_time_frame_dominates_no_other(
    extractor: SemanticExtractor, question: str
) -> None:
    # The warranty period says when; where to repair is asked: never the warranty key.
    decision = extractor.decide(question)
    assert not (isinstance(decision, Fingerprint) and decision.attribute == "warranty"), decision


@pytest.mark.parametrize("question", ["还在保修期内吗", "坏了能保修吗"])
def test_a_warranty_question_alone_stays_one(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert decision.attribute == "warranty"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The model code of a catalog value (the H2 of "Apple H2") is a stated value: its
        # digit is understood.
        ("airpods pro 2 用的芯片是h2吗", "airpods_pro_2|processor|"),
        ("does the airpods pro 2 run on an h2 chip", "airpods_pro_2|processor|"),
    ],
)
def test_model_codes_of_catalog_values(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # Buying for someone names who it is for, not what they own.
        (
            "want to get a xiaomi 14 for my wife, how much is the 512GB",
            "xiaomi_14|price|storage=512GB",
        ),
        # The product's own value, asked in a clause of its own without "is it".
        ("galaxy s24 screen size, 6.2?", "samsung_galaxy_s24|screen_size|"),
        # "gig" is a way to write GB.
        ("xiaomi 14 official price, the 256 gig one", "xiaomi_14|price|storage=256GB"),
        # Chinese everyday words of unopened / opened packaging.
        ("iphone 15塑封还没撕可以退吗", "null|return_policy|item_state=unopened"),
    ],
)
def test_everyday_constraint_and_value_wording(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    "question",
    ["my wife's xiaomi 14 screen cracked", "is my husband's galaxy s24 still under warranty"],
)
def test_a_relative_s_device_stays_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


def test_a_variant_s_own_value_is_understood(extractor: SemanticExtractor) -> None:
    # The named variant's own value, asked to be confirmed without its unit.
    decision = extractor.decide("model y long range range is it 688?")
    assert cid_of(decision) == "tesla_model_y|range|trim=long_range", decision
    # Another number, or no variant named, may be a variant we did not read.
    assert cid_of(extractor.decide("model y long range range is it 612?")) is None
    assert cid_of(extractor.decide("model y range is it 688?")) is None
