"""Personal-data detection and redaction (pure: no I/O after construction).

The gateway redacts a request's text before it derives a cache key, and it refuses to
store an answer whose request or text carried any finding. A :class:`Finding` records
the kind and position only, never the value, so findings can be counted and logged.

Kinds and how each is recognised (checksums through ``python-stdnum`` and Google's
``phonenumbers`` metadata, so random digit runs are not flagged):

==============  ===================================================================
``cn_id``       18-character resident ID (GB 11643), birth date and ISO 7064 check
``cn_mobile``   mainland mobile number (optional +86), validated by ``phonenumbers``
``cn_landline`` mainland fixed line with area code, validated by ``phonenumbers``
``bank_card``   13-19 digits (spaces/dashes allowed) passing the Luhn check
``email``       an e-mail address
``person``      zh: a jieba ``nr`` word that starts with a common surname, is not a
                catalog/vocabulary word and is a dictionary name or follows a name cue
                (我叫, 联系人, ...); en: a name after an honorific (Mr/Ms/Dr ...) or after
                "my name is". Deliberately conservative for English: without a model
                of English names, capitalised words would flag product names.
``place``       zh: an administrative division from jieba's dictionary (``ns`` ending in
                省/市/区/县/...) and street addresses (路/街 + 号, building/unit/room)
==============  ===================================================================

Bare city names are not treated as personal data; addresses are.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import phonenumbers
from jieba import Tokenizer
from jieba.posseg import POSTokenizer, pair
from jieba.posseg.char_state_tab import P as _CHAR_STATES
from stdnum import luhn
from stdnum.cn import ric


class PiiKind(StrEnum):
    CN_ID = "cn_id"
    CN_MOBILE = "cn_mobile"
    CN_LANDLINE = "cn_landline"
    BANK_CARD = "bank_card"
    EMAIL = "email"
    PERSON = "person"
    PLACE = "place"


@dataclass(frozen=True, slots=True, order=True)
class Finding:
    """Where personal data was found; the value itself is never kept."""

    start: int
    end: int
    kind: PiiKind


@dataclass(frozen=True, slots=True)
class Redaction:
    """``text`` with every finding replaced by its placeholder."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def found(self) -> bool:
        return bool(self.findings)

    @property
    def kinds(self) -> frozenset[PiiKind]:
        return frozenset(f.kind for f in self.findings)


def placeholder(kind: PiiKind) -> str:
    """A placeholder no client text can spell: request normalisation strips NUL."""
    return f"\x00{kind.value}\x00"


# Full-width digits and signs, mapped one character to one so positions stay valid.
_WIDTH_FOLD = str.maketrans(
    {
        **{chr(0xFF10 + i): str(i) for i in range(10)},
        "＋": "+",
        "－": "-",
        "＠": "@",
        "（": "(",
        "）": ")",
    }
)
_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_MOBILE = re.compile(r"(?<![\d+])(?:(?:\+|00)?86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)")
_LANDLINE = re.compile(
    r"(?<![\d+])(?:(?:\+|00)?86[ -]?)?(?:\(0\d{2,3}\)|0\d{2,3})[ -]?\d{3,4}[ -]?\d{4}(?!\d)"
)
# Starts only where a local part starts (the lookbehind), with RFC 5321's length bounds:
# otherwise every position of a long letter run is a new start scanned to its end.
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+"
)
_HONORIFIC_NAME = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)"
)
_SELF_INTRODUCTION = re.compile(
    r"\b(?i:my\s+name\s+is|my\s+name's|call\s+me)\s+([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)"
)
_ADDRESS = re.compile(
    r"(?:(?![省市区县州镇乡村])[\u4e00-\u9fff]){1,6}(?:路|街|大道|大街|巷|胡同|弄)\s*\d+\s*号"
    r"(?:\s*\d+\s*(?:号楼|栋|幢|单元|室|楼|层))*"
    r"|\d+\s*(?:号楼|栋|幢)\s*(?:\d+\s*(?:单元|室|楼|层)\s*)+"
)
_DIGIT_RUN = re.compile(r"\d[\d -]{5,}\d")

# The most common Chinese surnames (together they cover well over 90 % of people).
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾"
    "毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关"
    "兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻"
    "祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿"
    "桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
_COMPOUND_SURNAMES = frozenset(
    {
        "欧阳",
        "司马",
        "上官",
        "诸葛",
        "东方",
        "皇甫",
        "尉迟",
        "公孙",
        "慕容",
        "令狐",
        "夏侯",
        "长孙",
        "宇文",
        "司徒",
        "轩辕",
        "端木",
        "独孤",
        "南宫",
        "万俟",
        "闻人",
    }
)
_NAME_CUES = (
    "我叫",
    "叫做",
    "名字是",
    "名字叫",
    "姓名",
    "收件人",
    "收货人",
    "寄件人",
    "联系人",
    "联系",
    "本人是",
    "我是",
)
_NAME_TITLES = ("先生", "女士", "小姐", "老师", "同学", "经理", "师傅")
_PERSON_TAGS = frozenset({"nr", "nrfg"})
_DIVISION_SUFFIXES = ("省", "市", "区", "县", "州", "镇", "乡", "村", "旗", "盟")
_VOCABULARY_TAG = "nz"
#: The HMM looks at runs of at most this many characters the dictionary left single ...
HMM_MAX_RUN = 16
#: ... and at most this many characters per text.
HMM_BUDGET_CHARS = 128


class _BoundedPosTokenizer(POSTokenizer):  # type: ignore[misc]
    """jieba's POS tagger, with its HMM (the step that guesses names missing from the
    dictionary) run only over characters its model knows.

    A character absent from the model's table can be in any of the 256 states, so each
    one costs the HMM 256 x 256 steps (about 2.5 ms: 8 KB of rare characters took 20 s).
    Such characters are tagged ``x`` one by one instead (names are written in common
    characters, and dictionary words with rare characters are still found by the DAG);
    every other character has at most 60 states, so the HMM is linear with a small
    constant.
    """

    def _POSTokenizer__cut(self, sentence: str) -> Iterator[Any]:
        start = 0
        for index, char in enumerate(sentence):
            if char not in _CHAR_STATES:
                if start < index:
                    yield from POSTokenizer._POSTokenizer__cut(self, sentence[start:index])
                yield pair(char, "x")
                start = index + 1
        if start < len(sentence):
            yield from POSTokenizer._POSTokenizer__cut(self, sentence[start:])


def _has_surname(word: str) -> bool:
    return word[:2] in _COMPOUND_SURNAMES or word[0] in _SURNAMES


class Redactor:
    """Finds personal data in text. Build once (jieba's dictionary loads in ~1 s)."""

    __slots__ = ("_dictionary_tags", "_pos", "_vocabulary")

    def __init__(self, vocabulary: Iterable[str] = ()) -> None:
        logging.getLogger("jieba").setLevel(logging.WARNING)
        tokenizer = Tokenizer()
        tokenizer.initialize()
        self._pos = _BoundedPosTokenizer(tokenizer)
        self._dictionary_tags: dict[str, str] = self._pos.word_tag_tab
        # Catalog and vocabulary words (华为, 续航, 特斯拉 ...) are tagged as jieba names
        # or places in its dictionary; teaching them as one ``nz`` word each stops that.
        self._vocabulary = frozenset(w for w in vocabulary if w.strip())
        for word in sorted(self._vocabulary):
            if not word.isascii():
                self._pos.tokenizer.add_word(word, freq=100_000, tag=_VOCABULARY_TAG)
                self._dictionary_tags[word] = _VOCABULARY_TAG

    def find(self, text: str) -> tuple[Finding, ...]:
        """Every finding in ``text``, sorted, non-overlapping (earlier kinds win)."""
        folded = text.translate(_WIDTH_FOLD)
        taken: list[Finding] = []
        if _DIGIT_RUN.search(folded) is not None:
            self._numbers(folded, taken)
        if "@" in folded:
            self._add(taken, ((m.start(), m.end(), PiiKind.EMAIL) for m in _EMAIL.finditer(folded)))
        if not folded.isascii():
            self._add(
                taken, ((m.start(), m.end(), PiiKind.PLACE) for m in _ADDRESS.finditer(folded))
            )
            self._chinese_names(folded, taken)
        if any(c.isupper() for c in folded):
            for pattern in (_HONORIFIC_NAME, _SELF_INTRODUCTION):
                self._add(
                    taken,
                    ((m.start(1), m.end(1), PiiKind.PERSON) for m in pattern.finditer(folded)),
                )
        return tuple(taken)

    def redact(self, text: str) -> Redaction:
        findings = self.find(text)
        if not findings:
            return Redaction(text, ())
        parts: list[str] = []
        position = 0
        for finding in findings:
            parts.append(text[position : finding.start])
            parts.append(placeholder(finding.kind))
            position = finding.end
        parts.append(text[position:])
        return Redaction("".join(parts), findings)

    # -- kinds ----------------------------------------------------------------------

    def _numbers(self, text: str, taken: list[Finding]) -> None:
        # IDs first (18 digits can pass Luhn), phones before cards (+86 and a mobile
        # number are 13 digits, which can pass Luhn too).
        self._add(
            taken,
            ((m.start(), m.end(), PiiKind.CN_ID) for m in _ID.finditer(text) if ric.is_valid(m[0])),
        )
        self._add(taken, self._phones(_MOBILE, text, PiiKind.CN_MOBILE))
        self._add(taken, self._phones(_LANDLINE, text, PiiKind.CN_LANDLINE))
        self._add(
            taken,
            (
                (m.start(), m.end(), PiiKind.BANK_CARD)
                for m in _CARD.finditer(text)
                if luhn.is_valid(_digits(m[0]))
            ),
        )

    @staticmethod
    def _phones(
        pattern: re.Pattern[str], text: str, kind: PiiKind
    ) -> Iterable[tuple[int, int, PiiKind]]:
        wanted = (
            {phonenumbers.PhoneNumberType.MOBILE}
            if kind is PiiKind.CN_MOBILE
            else {
                phonenumbers.PhoneNumberType.FIXED_LINE,
                phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
            }
        )
        for match in pattern.finditer(text):
            try:
                number = phonenumbers.parse(match[0], "CN")
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) in wanted:
                yield match.start(), match.end(), kind

    def _words(self, text: str) -> Iterator[tuple[str, str]]:
        """(word, POS tag) covering ``text``: the dictionary segmentation, then the HMM
        over each run of characters the dictionary left single (where a name missing
        from the dictionary would be), within a per-text budget: an unsegmentable run
        longer than a name and its context, or beyond the budget, stays single characters
        (so a long text costs the DAG's linear time, not the HMM's)."""
        budget = HMM_BUDGET_CHARS
        run: list[str] = []

        def flush() -> Iterator[tuple[str, str]]:
            nonlocal budget
            if len(run) > 1 and len(run) <= HMM_MAX_RUN and len(run) <= budget:
                budget -= len(run)
                for token in self._pos.lcut("".join(run), HMM=True):
                    yield str(token.word), str(token.flag)
            else:
                for char in run:
                    yield char, self._dictionary_tags.get(char, "x")
            run.clear()

        for token in self._pos.lcut(text, HMM=False):
            word = str(token.word)
            if len(word) == 1 and "\u4e00" <= word <= "\u9fff":
                run.append(word)
                continue
            yield from flush()
            yield word, str(token.flag)
        yield from flush()

    def _chinese_names(self, text: str, taken: list[Finding]) -> None:
        position = 0
        found: list[tuple[int, int, PiiKind]] = []
        for word, tag in self._words(text):
            start, position = position, position + len(word)
            if word in self._vocabulary:
                continue
            if tag in _PERSON_TAGS and self._is_person(word, text, start, position):
                found.append((start, position, PiiKind.PERSON))
            elif tag == "ns" and self._is_division(word):
                found.append((start, position, PiiKind.PLACE))
        self._add(taken, found)

    def _is_person(self, word: str, text: str, start: int, end: int) -> bool:
        if not 2 <= len(word) <= 4 or word[0] == word[1] or not _has_surname(word):
            return False
        if self._dictionary_tags.get(word) in _PERSON_TAGS:
            return True
        # A name jieba's HMM guessed (not in its dictionary) needs context to count.
        before = text[max(0, start - 4) : start]
        return any(before.endswith(cue) for cue in _NAME_CUES) or text.startswith(_NAME_TITLES, end)

    def _is_division(self, word: str) -> bool:
        return (
            len(word) >= 3
            and self._dictionary_tags.get(word) == "ns"
            and word.endswith(_DIVISION_SUFFIXES)
        )

    @staticmethod
    def _add(taken: list[Finding], spans: Iterable[tuple[int, int, PiiKind]]) -> None:
        """Add the spans that overlap nothing taken yet; ``taken`` stays sorted and
        disjoint, so one binary search finds the only neighbours that could overlap."""
        for start, end, kind in spans:
            at = bisect.bisect_left(taken, start, key=lambda f: f.start)
            if at > 0 and taken[at - 1].end > start:
                continue
            if at < len(taken) and taken[at].start < end:
                continue
            taken.insert(at, Finding(start, end, kind))


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def vocabulary_words(*documents: Any, keep: Callable[[str], bool] | None = None) -> set[str]:
    """Every short literal word in some JSON documents (catalog names, synonyms, phrases).

    Regular expressions and prose are skipped: only strings that look like one word or
    name (no regex syntax, at most 16 characters) are kept.
    """
    words: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(key)
                walk(value)
        elif isinstance(node, list | tuple):
            for value in node:
                walk(value)
        elif (
            isinstance(node, str)
            and 2 <= len(node) <= 16
            and _LITERAL.match(node)
            and (keep is None or keep(node))
        ):
            words.add(node)

    for document in documents:
        walk(document)
    return words


_LITERAL = re.compile(r"^[\w\u4e00-\u9fff][\w\u4e00-\u9fff ·.-]*$")
