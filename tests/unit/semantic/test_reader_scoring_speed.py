"""The second reader's by-index and vector scoring gives the plain gram-by-gram sums, float
for float."""

from __future__ import annotations

import pytest

from services.core.semantic.reader import _NaiveBayes
from tests.unit.semantic.references import plain_ranking


def test_reader_ranking_is_the_plain_gram_by_gram_sum() -> None:
    # Grams most classes share (dense rows) and grams of one class (sparse), grams seen
    # twice in a question (a count above one), and ignored grams.
    examples = [
        ("how long does the battery last", "battery"),
        ("battery life on a full charge", "battery"),
        ("how much does it cost", "price"),
        ("what is the price of it", "price"),
        ("how big is the screen", "screen"),
        ("screen size in inches", "screen"),
        ("电池能用多久", "battery"),
        ("多少钱", "price"),
    ]
    ignored = frozenset({"zeta", "zet", "eta"})
    reader = _NaiveBayes(examples, ignored)
    for text in (
        "how long is the zeta battery life",
        "price price price of the screen",
        "屏幕多大 电池多久",
        "nothing it has seen",
        "",
    ):
        assert reader.ranking(text) == plain_ranking(examples, ignored, text), text


EXAMPLES = [
    ("how long does the battery of the orbit last", "battery"),
    ("battery life of the orbit on one charge", "battery"),
    ("续航多久 电池能用几天", "battery"),
    ("what does the orbit cost", "price"),
    ("orbit price, how much is it", "price"),
    ("多少钱 价格多少", "price"),
    ("how big is the display of the orbit", "screen"),
    ("屏幕多大 几寸", "screen"),
    ("does the orbit ship abroad", "shipping"),
    ("发货快吗 几天到", "shipping"),
]


@pytest.mark.parametrize(
    "text",
    [
        # long, chatty and repetitive: many grams most classes have seen, counts above one
        "hi there, so how long does the battery last, and the battery of the orbit, how "
        "long, i mean on one charge, and what does it cost, how much, how much is it",
        "你好 请问这个续航多久 电池能用几天 还有多少钱 价格多少 屏幕多大 发货快吗 几天到 " * 3,
        "orbit orbit orbit",
        "none of these letters: zq",
        "",
    ],
)
def test_vector_scores_are_the_loop_sums_float_for_float(text: str) -> None:
    assert _NaiveBayes(EXAMPLES).ranking(text) == plain_ranking(EXAMPLES, frozenset(), text)
