"""比较 before a status word (匆忙) or opening a set phrase of jieba's (比较关心) is the
degree adverb "fairly", not "compare"; 比较价格 still compares. Questions written for
these tests."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


def test_before_a_status_word_it_grades(extractor: SemanticExtractor) -> None:
    question = "平时上班比较匆忙，所以在意这个。小米14插线充电最高多少瓦？"
    assert decided_cid(extractor, question) == "xiaomi_14|charging_power|method=wired"


def test_opening_a_set_phrase_it_grades(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "苹果16的重量是多少？我比较关心这个") == "iphone_16|weight|"
