"""Pinyin initials typed for Chinese words (kf for 客服, sx for 三星, zfb for 支付宝): read
as the vocabulary word whose pypinyin initials they are, when every reading agrees.
Questions written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import NoFingerprint
from services.core.semantic.initials import PinyinInitials, initials_of
from tests.unit.semantic.decisions import decided_cid


def test_initials_of_chinese_words() -> None:
    assert initials_of("三星") == "sx"
    assert initials_of("支付宝") == "zfb"
    assert initials_of("不知道") == "bzd"


def test_a_word_of_its_own_is_never_offered() -> None:
    initials = PinyinInitials(["不知道", "海外"], {}, lambda token: token == "hw")
    assert [r.text for r in initials.readings("bzd 小米14 多重")] == ["不知道 小米14 多重"]
    assert initials.readings("hw 小米14") == []


def test_two_letters_need_chinese_around() -> None:
    initials = PinyinInitials(["发票", "支付宝"], {}, lambda token: False)
    assert initials.readings("can i get a fp") == []
    assert [r.text for r in initials.readings("can i pay by zfb")] == ["can i pay by 支付宝"]


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # chat words typed as initials say nothing, as the words do
        ("kf 小米14 多少钱", "xiaomi_14|price|"),
        ("bzd 小米14 重不重", "xiaomi_14|weight|"),
        ("xdm 小米14 多重", "xiaomi_14|weight|"),
        ("yysy 小米14 屏幕多大", "xiaomi_14|screen_size|"),
        # a brand's initials beside its model, glued to the number too
        ("sx s24 ultra 重量多少", "samsung_galaxy_s24_ultra|weight|"),
        ("xm14 屏幕多大", "xiaomi_14|screen_size|"),
        # meaning-bearing words read as the word
        ("可以用zfb付款吗", "payment_methods"),
        ("开fp要多久", "invoice"),
    ],
)
def test_initials_read_as_their_word(extractor: SemanticExtractor, question: str, cid: str) -> None:
    assert decided_cid(extractor, question) == (cid if "|" in cid else f"null|{cid}|")


@pytest.mark.parametrize(
    "question",
    [
        # 开封 (opened) and 客服 both fit kf, and the two readings ask different things
        "kf后能退货吗",
        # 三星 has no model beside it, and 色系 alone reads nothing
        "sx 小米14 多重",
        # 华为 and 黑五 (a sale) both fit hw: the sale reading bypasses, so no reading stands
        "hw mate60 多少钱",
    ],
)
def test_competing_readings_abstain(extractor: SemanticExtractor, question: str) -> None:
    assert isinstance(extractor.decide(question), NoFingerprint)
