"""Numbers as Chinese chat and English clipping write them: the unsaid place after 万
(23万8 is 23.8万), a round number made approximate before its unit (一百六十多克), a number
offered right after the unit asked (多少毫安 5000吗), "in" glued to a number (6.1in),
dates that are no durations (23年几月, 2023年发布). Questions written for these tests, not
taken from any set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    ("question", "key"),
    [
        # 万 then one digit: that digit is the next place (23万8 = 238,000).
        ("毛豆3高性能版指导价是28万9吗", "tesla_model_3|price|trim=performance"),
        # A round numeral, an approximate 多 / 来, then its unit: a value in that unit.
        ("小米14好像一百九十多克，到底多少g", "xiaomi_14|weight|"),
        ("苹果15是不是一百七十来克", "iphone_15|weight|"),
        # The number after the unit asked is the value to confirm in that unit.
        ("小米14电池多少毫安 5000吗", "xiaomi_14|battery_capacity|"),
        ("苹果15厚度多少mm 7.8吗", "iphone_15|dimensions|"),
        # "in" glued to a number is the inch symbol.
        ("galaxy s24 6.2in right?", "samsung_galaxy_s24|screen_size|"),
        # A year and a month (or 几月) is a date: no warranty of 23 years.
        ("苹果15是23年几月份上市的", "iphone_15|release_date|"),
        ("苹果15上市时间是2023年9月吗", "iphone_15|release_date|"),
        ("苹果15是2023年发布的吗", "iphone_15|release_date|"),
    ],
)
def test_stated_amounts_read(extractor: SemanticExtractor, question: str, key: str) -> None:
    assert _key(extractor, question) == key


@pytest.mark.parametrize(
    "question",
    [
        # A unit letter another key's values end in (256g): the number may be storage.
        "三星S24 Ultra多少g 232吗",
        # "in" apart from the number is the preposition.
        "does the galaxy s24 come in 6 colours",
    ],
)
def test_competing_readings_abstain(extractor: SemanticExtractor, question: str) -> None:
    assert _key(extractor, question) is None
