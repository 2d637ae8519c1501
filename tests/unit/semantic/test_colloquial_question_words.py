"""Colloquial question words: 多钱 (the spoken short form of 多少钱) asks a price, and two
coordinated size words (多宽多高, 多长、多宽) ask the dimensions as "how wide and how tall"
does. Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("小米14大概多钱", "xiaomi_14|price|"),
        ("iPhone 15 512G多钱啊", "iphone_15|price|storage=512GB"),
    ],
)
def test_short_spoken_price_word_asks_the_price(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert decided_cid(extractor, text) == cid


@pytest.mark.parametrize("text", ["iPhone 15 多长多宽", "小米14到底多厚、多宽"])
def test_coordinated_size_words_ask_the_dimensions(extractor: SemanticExtractor, text: str) -> None:
    cid = decided_cid(extractor, text)
    assert cid is not None and cid.endswith("|dimensions|"), cid


def test_a_time_length_is_no_size_word(extractor: SemanticExtractor) -> None:
    # 多长时间 asks how long in time, never a length.
    assert decided_cid(extractor, "小米14多长时间多高") is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [("小米14打折后多钱", "realtime"), ("我上次买的小米14多钱", "personal")],
)
def test_the_short_price_word_keeps_bypass_cues(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    assert decided_bypass(extractor, text) == intent


@pytest.mark.parametrize("question", ["俺订的 Galaxy S24 啥时候发货", "俺买的手表能退不"])
def test_the_dialect_first_person_is_the_asker(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "personal"
