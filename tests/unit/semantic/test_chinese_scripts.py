"""Traditional characters, written Cantonese and Taiwanese usage read as the simplified
standard the vocabulary is written in. Questions written for these tests, not taken
from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.scripts import ChineseScripts
from tests.unit.semantic.decisions import cid_of, decided_bypass


def test_traditional_characters_and_taiwanese_words_become_mainland_ones() -> None:
    scripts = ChineseScripts({})
    assert scripts.standard("華為螢幕記憶體") == "华为屏幕内存"
    assert scripts.standard("model y range") == "model y range"


def test_regional_forms_are_replaced_longest_first_in_either_script() -> None:
    scripts = ChineseScripts(
        {"幾多": "多少", "係": "是", "關係": "关系", "係唔係": "是不是", "保養期": "保修期"}
    )
    assert scripts.standard("電池幾多") == "电池多少"
    assert scripts.standard("系唔系") == "是不是"  # Cantonese in simplified characters
    # A Hong Kong word matches as written: simplified 保养期 is the mainland word (upkeep).
    assert scripts.standard("保養期") == "保修期"
    assert scripts.standard("保养期") == "保养期"
    assert scripts.standard("係唔係") == "是不是"
    # 關係 is a word of its own; the lone 係 is the copula. Simplified 系 (系列) is kept.
    assert scripts.standard("有關係") == "有关系"
    assert scripts.standard("Mate系列") == "Mate系列"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("小米14 電池容量係幾多", "xiaomi_14|battery_capacity|"),
        ("三星S24 Ultra 螢幕有幾吋", "samsung_galaxy_s24_ultra|screen_size|"),
        ("ThinkPad X1 Carbon 保固幾耐", "thinkpad_x1_carbon|warranty|"),
        ("特斯拉Model 3 有冇得揀顏色", "tesla_model_3|colors|"),
    ],
)
def test_traditional_and_cantonese_questions_get_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert cid_of(extractor.decide(question)) == cid


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # A pronoun and a classifier is a possessive in Cantonese: 我部 = 我的.
        ("我部小米14 充唔到電，點算", "personal"),
        ("而家買華為Mate 60 有冇優惠", "realtime"),
        ("三星S24 同 S24 Ultra 邊部好啲", "compare"),
        ("我給了兩次錢，可唔可以退返一次", "personal"),
    ],
)
def test_traditional_and_cantonese_bypass_questions_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert decided_bypass(extractor, question) == intent
