"""Chinese as it is written outside the mainland: one standard form for the matchers.

Traditional characters (螢幕, 記憶體) become simplified ones with OpenCC's Taiwan-to-
mainland conversion, which also turns Taiwanese words into mainland ones (螢幕 → 屏幕,
記憶體 → 内存, 支援 → 支持). Regional written forms that no character conversion covers
(written Cantonese 幾多 → 多少, 我部 → 我的; Taiwanese 保固 → 保修) come from the
lexicon's ``regional_words`` and are replaced first, longest first, in the script the
shopper used: a Cantonese form of two or more characters also matches its simplified
spelling (系唔系), a single character only as listed (係, whose simplified 系 is the 系
of 系列), a Taiwanese or Hong Kong word (保固) only as listed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import opencc

#: Characters only written Cantonese uses: a form with one is Cantonese in either
#: script, so its simplified spelling (系唔系) is replaced too. Other regional forms
#: (保固, 筆電) are words of traditional-script regions and match only as listed.
_CANTONESE_ONLY = frozenset("唔冇咗嘅啲佢哋嗰咁噉嘢喺俾畀睇嚟揀攞係咩乜嘞㗎喎囉啩咋埋攰晒嚿嘥啱")
#: Characters OpenCC may change: anything in the CJK blocks. Text without any is kept.
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class ChineseScripts:
    """Traditional → simplified characters and regional → standard written words."""

    __slots__ = ("_converter", "_forms", "_regional")

    def __init__(self, regional_words: Mapping[str, str]) -> None:
        self._converter = opencc.OpenCC("tw2sp")
        forms: dict[str, str] = {}
        for written, standard in regional_words.items():
            key = unicodedata.normalize("NFKC", written).lower()
            if not key:
                continue
            forms.setdefault(key, standard)
            if len(key) >= 2 and not _CANTONESE_ONLY.isdisjoint(key):
                forms.setdefault(self._converter.convert(key), standard)
        self._forms = forms
        self._regional = (
            re.compile("|".join(re.escape(k) for k in sorted(forms, key=len, reverse=True)))
            if forms
            else None
        )

    def standard(self, text: str) -> str:
        """``text`` with regional forms replaced and every character simplified."""
        if _CJK.search(text) is None:
            return text
        if self._regional is not None:
            text = self._regional.sub(lambda m: self._forms[m.group()], text)
        converted: str = self._converter.convert(text)
        return converted
