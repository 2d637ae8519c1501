"""Round 10 (issue 15), bypass leaks: a software version newer than the one a product
launched with (read from the catalog), an update asked as coming or when, a month or a
launch still ahead, a resale price after a time still to pass, the asker's own unit named
by a relative clause ("the ... I opened"), and price protection stated in other words
than the vocabulary's phrase; beside each, near questions that must keep a fingerprint.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.admission import CueContext, only_other_words
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from services.core.semantic.phrases import Hit
from services.core.semantic.versions import LaunchVersions, versioned_attributes
from tests.unit.semantic.decisions import decided_bypass as _intent
from tests.unit.semantic.decisions import decided_cid


def test_launch_versions_are_read_by_family_from_the_spec_text() -> None:
    launch = LaunchVersions.of(["one ui 6.1 (android 14)"])
    assert launch.newer("one ui 7")
    assert launch.newer("android 15")
    assert not launch.newer("one ui 6.1")
    assert not launch.newer("android 14")
    assert not launch.newer("one ui 6")


def test_a_trailing_zero_names_the_same_version() -> None:
    assert not LaunchVersions.of(["harmonyos 4"]).newer("harmonyos 4.0")
    assert not LaunchVersions.of(["harmonyos 4.0"]).newer("harmonyos 4")
    assert LaunchVersions.of(["harmonyos 4.0"]).newer("harmonyos 4.2")


def test_another_name_of_the_only_versioned_family_is_compared_with_it() -> None:
    # 鸿蒙 is HarmonyOS written otherwise: the product has one versioned family.
    assert LaunchVersions.of(["harmonyos 4.0"]).newer("鸿蒙5")
    # Two families and a name that is neither: no reading.
    assert not LaunchVersions.of(["one ui 6.1 (android 14)"]).newer("鸿蒙20")


def test_a_value_without_a_version_number_gives_no_comparison() -> None:
    # "macOS Sonoma", "Xiaomi HyperOS": a number stated can be neither above nor equal.
    assert not LaunchVersions.of(["macos sonoma"]).newer("macos 15")
    assert not LaunchVersions.of(["xiaomi hyperos 澎湃os"]).newer("hyperos 2")


def test_only_attributes_whose_updates_are_predict_are_versioned() -> None:
    attributes = {
        "attributes": {
            "os": {
                "kind": "spec",
                "description": "Shipped. Future update questions are 'predict'.",
            },
            "launch": {"kind": "spec", "description": "Unreleased products are 'predict'."},
            "fee": {"kind": "policy", "description": "Updates are 'predict'."},
        }
    }
    assert versioned_attributes(attributes) == frozenset({"os"})


@pytest.mark.parametrize(
    "question",
    [
        # A version above the catalog's launch value.
        "galaxy s24 one ui 8",
        "does the s24 ultra run android 16",
        "mate 60 pro 鸿蒙6体验怎么样",
        "apple watch series 9 watchos 13 features",
        "thinkpad x1 carbon windows 13",
        # An update asked as coming or when.
        "xiaomi 14 new firmware update coming soon?",
        "when is the next os update for the xiaomi 14",
        "小米14系统更新什么时候来",
        "小米14啥时候推送新系统",
        # A month ahead, nothing stated as past.
        "galaxy s24 price in november",
        "macbook air m3 price around february",
        "how much is the model y by next march",
        "小米14 11月价格",
        # A launch still to come.
        "iphone 16 price after the iphone 18 launch",
        "galaxy s24 cost once the s26 comes out",
        "macbook air m3 price after the next launch",
        "华为Mate 80发布之后Mate 60价格",
        # A resale price after a time still to pass.
        "小米14过两年还能卖多少钱",
        "苹果16还能卖多少",
    ],
)
def test_future_questions_are_predict(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "predict", extractor.decide(question)


@pytest.mark.parametrize(
    "question",
    [
        # The product named by a relative clause of what the asker did with it.
        "can i get a refund on the airpods pro 2 i unboxed this morning",
        "the galaxy s24 we activated last week, is it still covered",
        "the earbuds i wore twice, can you take them back",
        "the one we received, can it be exchanged",
        # What the asker did with it, and when.
        "i tried the apple watch series 9 a few days ago, can i return it",
        "我前天拆封的华为耳机能退吗",
        # The asker's order named by its measure word.
        "我这单苹果16的发票开了没",
    ],
)
def test_the_askers_own_unit_is_personal(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "personal", extractor.decide(question)


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The launch version itself, confirmed.
        ("is the galaxy s24 on android 14 out of the box", "samsung_galaxy_s24|operating_system|"),
        ("apple watch series 9 ships with watchos 10?", "apple_watch_series_9|operating_system|"),
        ("mate 60 pro 出厂是鸿蒙4吗", "huawei_mate_60_pro|operating_system|"),
        # A month stated as past: the release date.
        ("was the iphone 16 released in september", "iphone_16|release_date|"),
        # A conditional, not the asker's history: the store's rule.
        ("if i opened the box, can i still return it", "null|return_policy|item_state=opened"),
        # Price protection in other words than the vocabulary's phrase.
        ("if the price drops after i order, is the difference paid back", "null|price_protection|"),
        ("小米14价格多少", "xiaomi_14|price|"),
    ],
)
def test_near_questions_keep_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid, extractor.decide(question)


def test_a_question_about_what_the_asker_asked_is_no_ownership(
    extractor: SemanticExtractor,
) -> None:
    # "the one I asked about" is no acquiring or using verb.
    assert _intent(extractor, "the phone i asked about, what colours does it come in") != "personal"


def test_a_compare_word_of_an_attribute_asked_otherwise_is_that_attributes_word() -> None:
    text = "if the price drops, is the difference refunded"
    asked = Hit("price_protection", 7, 18, "price drops")
    cue = Hit("compare", 27, 37, "difference")
    words = {"price_protection": frozenset({"refund", "the", "difference"})}
    context = CueContext(text, [asked], lambda: frozenset(), words)
    assert only_other_words([cue], context)
    # Without the attribute's phrase words, the word still compares.
    assert not only_other_words([cue], CueContext(text, [asked], lambda: frozenset()))


def test_price_protection_in_other_words_is_not_a_comparison(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("if the price drops after purchase, is the difference refunded")
    assert isinstance(decision, Fingerprint) and decision.attribute == "price_protection"
