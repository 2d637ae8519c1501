from __future__ import annotations

import pytest

from services.core.semantic.normalise import TextNormaliser, parse_chinese_numeral
from services.core.semantic.spelling import SpellingCorrector


@pytest.mark.parametrize(
    ("run", "value"),
    [
        ("十五", 15),
        ("十", 10),
        ("六十", 60),
        ("一百二十八", 128),
        ("二五六", 256),
        ("四十一", 41),
        ("两", 2),
    ],
)
def test_chinese_numerals(run: str, value: int) -> None:
    assert parse_chinese_numeral(run) == value


@pytest.fixture(scope="module")
def normaliser() -> TextNormaliser:
    return TextNormaliser(
        ["苹果", "小米"], ["三电质保", "七天无理由"], SpellingCorrector(["充电", "苹果", "小米"])
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("苹果十五电池", "苹果15电池"),
        ("iPhone十五Pro", "iphone15pro"),
        ("AirPods Pro 第二代", "airpods pro 2代"),
        ("AirPods Pro (2nd generation)", "airpods pro 2代"),
        ("四十一毫米", "41毫米"),
        ("ＩＰＨＯＮＥ　１５", "iphone 15"),
        ("有线冲电多少W", "有线充电多少w"),
        # Numerals inside ordinary words stay words.
        ("三星S24", "三星s24"),
        ("汉EV三电质保", "汉ev三电质保"),
        ("七天无理由", "七天无理由"),
        ("下一代什么时候出", "下一代什么时候出"),
        ("一次充电", "一次充电"),
    ],
)
def test_normalise(normaliser: TextNormaliser, text: str, expected: str) -> None:
    assert normaliser.normalise(text) == expected


def test_how_many_before_an_uncountable_noun_is_how_much() -> None:
    normaliser = TextNormaliser(())
    assert normaliser.normalise("xiaomi 14 how many money") == "xiaomi 14 how much money"
    assert normaliser.normalise("how many colours") == "how many colours"
