"""Bypass cues that, in their sentence, do not carry the intent: 比较 as a degree adverb
(我比较在乎手感, 比较多), an A-not-A 要 whose object is a fee, the modal 会 before the existential
有, and a set-aside cue that needs the negation right before it. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.admission import only_set_aside
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.phrases import Hit
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # 比较 before a verb of feeling: "fairly", no comparison.
        ("华为mate60 pro重多少克 我比较在乎手感", "huawei_mate_60_pro|weight|"),
        ("我比较担心续航，小米14电池多大", "xiaomi_14|battery_capacity|"),
        ("我平时比较怕摔，华为mate60 pro防水等级是多少", "huawei_mate_60_pro|water_resistance|"),
        # An A-not-A 要 of a fee: is there a charge, a rule of the store.
        ("港澳地区要不要邮费", "null|shipping_fee|"),
        ("新疆那边要不要另外付运费啊", "null|shipping_fee|"),
        # 会有 + a question word: what there is.
        ("苹果15盒子里会有哪些配件", "iphone_15|in_box|"),
        ("小米14会有几种配色", "xiaomi_14|colors|"),
        # A copula says the product's own chip is of the new generation.
        ("小米14用的骁龙几？是不是新一代的骁龙芯片", "xiaomi_14|processor|"),
        # What the asker found, stated in a clause of its own.
        ("小米14多重？我在好几家店问到的说法都不一样", "xiaomi_14|weight|"),
    ],
)
def test_cue_not_meant_gets_a_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # 比较 the verb, with its complements: a comparison.
        ("小米14电池多大，想跟13比较看看", "compare"),
        ("小米14电池多大 比较完了再买", "compare"),
        ("小米14和苹果15比较起来哪个续航好", "compare"),
        # 要不要 + an action: should I.
        ("小米14要不要买", "recommend"),
        ("要不要加钱买512的小米14", "recommend"),
        # 会有 asking whether something will come, or 还会有 (still): the future.
        ("小米14会有新配色吗", "predict"),
        ("小米14还会有几年系统更新", "predict"),
        # A generation word naming a product, not the product's attribute.
        ("小米14是新一代吗", "predict"),
        ("小米14新一代芯片什么时候出", "predict"),
        # The asker asks what differs; a clause with a question is no situation.
        ("我想知道有什么不一样，小米14多重", "compare"),
        ("小米14多重，我看你们两个版本重量不一样吗", "compare"),
    ],
)
def test_cue_meant_stays_bypassed(extractor: SemanticExtractor, question: str, intent: str) -> None:
    assert decided_bypass(extractor, question) == intent


def test_degree_adverb_before_a_verb_of_feeling(extractor: SemanticExtractor) -> None:
    segmenter = extractor._segmenter
    assert segmenter.degree_adverbs("我比较在乎手感") == [(1, 3)]
    assert segmenter.degree_adverbs("我比较怕摔坏") == [(1, 3)]
    # Complements of the verb 比较: directional, doubled, a one-character result.
    assert segmenter.degree_adverbs("比较起来") == []
    assert segmenter.degree_adverbs("比较看看") == []
    assert segmenter.degree_adverbs("比较完了") == []
    assert segmenter.degree_adverbs("比较是否值得") == []


def test_degree_adverb_before_quantity(extractor: SemanticExtractor) -> None:
    segmenter = extractor._segmenter
    assert segmenter.degree_adverbs("我拍照比较少") == [(3, 5)]
    assert segmenter.degree_adverbs("比较一下价格") == []


def test_only_set_aside_needs_the_negation_right_before() -> None:
    text = "the list price, not a deal"
    cue = Hit("realtime", text.index("deal"), len(text), "deal")
    assert only_set_aside([cue], text)
    text = "is there no deal"
    cue = Hit("realtime", text.index("deal"), len(text), "deal")
    assert not only_set_aside([cue], text)
    assert not only_set_aside([], text)
