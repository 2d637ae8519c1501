"""Text normalisation shared by every matcher.

One canonical form: Unicode NFKC (full-width letters, digits and punctuation become
half-width), lower case, misspellings repaired against the vocabulary (``spelling.py``: homophones,
edit distance), Chinese numerals turned into digits
where they name a model or a measure (苹果十五 → 苹果15, 第二代 → 2代, 四十一毫米 → 41毫米)
and whitespace collapsed. Numerals in ordinary words (三星, 一加, 一次, 三电) are kept:
they are not numbers there, which is why a blind converter is not used.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz.distance import OSA

from services.core.semantic.scripts import ChineseScripts
from services.core.semantic.spelling import SpellingCorrector
from services.core.semantic.transliteration import PinyinNames, Transliterator

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    # 幺 is how 一 is spoken when digits are read one by one (五幺二 = 512).
    "幺": 1,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_NUMERAL_CHARS = frozenset("零〇一二两三四五六七八九幺十百千")
_CN_NUMERAL_RUN = re.compile(r"[零〇一二两三四五六七八九幺十百千]+")
_MULTIPLIERS = frozenset("十百千")
#: Words that make a round number approximate before its unit (三十多克, 两百来克, 百余克).
_APPROXIMATE = frozenset("多来余")
_SPACES = re.compile(r"\s+")
#: What every look-alike digit needs: an l or o right before a digit.
_LETTER_BEFORE_DIGIT = re.compile(r"[lo](?=\d)|\d[lo](?![a-z\d])")
# "2nd gen", "(2nd generation)", "第2代" all name the same generation as "2代".
_ORDINAL_GENERATION = re.compile(r"\(?\s*(\d+)\s*(?:st|nd|rd|th)\s+gen(?:eration)?\s*\)?")
_DI_GENERATION = re.compile(r"第\s*(\d+)\s*代")
# "gen 2", "gen12", "generation 3": the same generation mark as "2nd gen"; after a
# number it is a chip or version name (骁龙8 Gen 3) and stays.
_GEN_NUMBER = re.compile(r"(?<![a-z])(?<!\d)(?<!\d\s)gen(?:eration)?\s*(\d+)(?![\d.])")

# English number words (a general fact of the language): "iphone sixteen", "mate sixty
# pro", "model three" are spoken model numbers; "second gen" is "2nd gen".
_EN_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_EN_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_EN_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_EN_DIGITS = "|".join(k for k, v in _EN_UNITS.items() if 0 < v < 10)
#: "sixty", "twenty four", "twenty-four".
_EN_TENS_NUMBER = "(?:" + "|".join(_EN_TENS) + r")(?:[\s-](?:" + _EN_DIGITS + "))?"
#: "sixteen", "sixty", "twenty four", "twenty-four": longest alternative first.
_EN_NUMBER = (
    "(?:"
    + _EN_TENS_NUMBER
    + "|"
    # "one" alone is the pronoun ("the pro one"), never a model number.
    + "|".join(sorted((k for k in _EN_UNITS if k != "one"), key=len, reverse=True))
    + ")"
)
#: Ten to ninety-nine in words.
_EN_BELOW_HUNDRED = (
    "(?:"
    + _EN_TENS_NUMBER
    + "|"
    + "|".join(sorted((k for k, v in _EN_UNITS.items() if v >= 10), key=len, reverse=True))
    + ")"
)


def _spoken_quantity(pairs: bool) -> str:
    """A quantity said in words: "five hundred (and) twelve", "forty one", "seven". With
    ``pairs``, also a hundreds digit then the rest, as sizes are read ("one twenty
    eight" = 128, "five twelve" = 512)."""
    rest = rf"(?:\s+(?:{_EN_BELOW_HUNDRED}|{_EN_DIGITS}))?"
    hundreds = rf"(?:{_EN_DIGITS})\s+hundred(?:\s+and)?{rest}"
    pair = rf"|(?:{_EN_DIGITS})\s+{_EN_BELOW_HUNDRED}" if pairs else ""
    return rf"(?:{hundreds}{pair}|{_EN_BELOW_HUNDRED}|{_EN_DIGITS})"


def parse_spoken_quantity(words: str) -> int:
    """Value of a quantity matched by ``_spoken_quantity`` ("one twenty eight" = 128)."""
    parts = [w for w in re.split(r"[\s-]+", words.strip()) if w and w != "and"]
    if "hundred" in parts:
        at = parts.index("hundred")
        return parse_english_number(" ".join(parts[:at])) * 100 + parse_english_number(
            " ".join(parts[at + 1 :])
        )
    if len(parts) >= 2 and parts[0] in _EN_UNITS and 0 < _EN_UNITS[parts[0]] < 10:
        rest = " ".join(parts[1:])
        if rest and parse_english_number(rest) >= 10:
            return _EN_UNITS[parts[0]] * 100 + parse_english_number(rest)
    return parse_english_number(words)


#: The longest vocabulary word looked for where a numeral word may be split.
_MAX_WORD = 6
#: A number right before a storage unit is a storage size, the unit's word its symbol
#: ("one terabyte" = 1tb, "two tb" = 2tb, "256 gigabytes" = 256gb): "one" before a unit
#: is no pronoun.
_SPOKEN_STORAGE = re.compile(
    r"(?<![a-z'\d.])(\d+|" + _spoken_quantity(pairs=True) + r"|one|" + _EN_NUMBER + r")"
    r"[\s-]*(terabytes?|tb|gigabytes?|gigs?|gb)(?![a-z])"
    # "a terabyte": the article before a unit spelt out counts one
    r"|(?<![a-z'\d.])(a)\s+(terabyte|gigabyte)(?![a-z])"
)
#: A hundreds digit then the rest, said without a unit ("five twelve", "two fifty six"):
#: the way memory sizes are read; only a power of two is taken for one (128, 256, 512).
_SPOKEN_SIZE = re.compile(
    r"(?<![a-z'\d.])((?:" + _EN_DIGITS + r")\s+(?:" + _EN_BELOW_HUNDRED + r"))"
    r"(?![a-z\d-])(?![\s-]+(?:hundred|thousand|" + _EN_DIGITS + r")\b)"
)
_SMALLEST_SIZE = 64


def _spoken_size(match: re.Match[str]) -> str:
    value = parse_spoken_quantity(match.group(1))
    if value >= _SMALLEST_SIZE and value & (value - 1) == 0:
        return str(value)
    return match.group(0)


#: A number word before a counted noun counts it ("the model three years ago"): no
#: model number.
_COUNTED = (
    *("years?", "months?", "weeks?", "days?", "hours?", "minutes?", "times?", "people"),
    *("colou?rs?", "dollars?", "bucks", "percent", "of", "more", "or", "and", "to"),
)
_ORDINAL_WORD_GENERATION = re.compile(
    r"\(?\b(" + "|".join(_EN_ORDINALS) + r")\s+gen(?:eration)?\b\s*\)?"
)

# A numeral is converted when it follows a Latin letter ("iphone十五", "pro二代") or
# one of the series words handed in, or precedes one of these measure words.
#: A series word of four letters or more and the model number after it in a name.
_HEAD_AND_NUMBER = re.compile(r"(?<![a-z])([a-z]{4,})\s?(\d+)(?![\d.])")
_UNIT_AFTER = ("代", "寸", "英寸", "毫米", "倍", "瓦", "核", "毫安", "赫兹")
# A Latin unit written right after the numeral (一T, 二百五十六G, 五千mAh) makes it a
# measure too: no ordinary word glues a numeral to a unit abbreviation.
_LATIN_UNIT_AFTER = re.compile(r"(?:gb?|tb?|mah|w|hz|mm|mp)(?![a-z])")
# "一个T", "两个G": the measure word 个 between a numeral and a storage unit says nothing.
_GE_BEFORE_UNIT = re.compile(r"([零〇一二两三四五六七八九十百千\d])个(?=(?:gb?|tb?)(?![a-z]))")
# Chinese chat leaves the next digit's place unsaid after 万: 24万5 is 24.5万, 3万2 is
# 3.2万; not before another digit or a smaller multiplier (2万5千 says it in full).
_WAN_TAIL = re.compile(r"(?<![\d.])(\d+)万([1-9])(?![\d.十百千万])")
# "41 millimeters" is 41mm as the case sizes and the specs write it.
_SPELT_MILLIMETRES = re.compile(r"(?<=\d)\s*millimet(?:er|re)s?(?![a-z])")
# "in" glued to a number is the inch symbol (6.7in, 14in); apart, it is the preposition.
_GLUED_INCH = re.compile(r"(?<![a-z\d.])(\d+(?:\.\d+)?)in(?![a-z\d])")
# Function words that start with a numeral: after a model's numeral ("gt四一般", "十五一共")
# the last numeral begins the word, so it is not part of the number.
_NUMERAL_FUNCTION_WORDS = ("一般", "一共", "一下", "一直", "一样", "一起", "一些", "一定")


def parse_english_number(words: str) -> int:
    """Value of an English number word matched by ``_EN_NUMBER`` ("twenty-four" = 24)."""
    total = 0
    for word in re.split(r"[\s-]+", words.strip()):
        total += _EN_TENS.get(word, 0) + _EN_UNITS.get(word, 0)
    return total


def parse_chinese_numeral(run: str) -> int | None:
    """Value of a Chinese numeral such as 十五, 六十, 一百二十八, 二五六 (digit by digit)."""
    if not run:
        return None
    if all(ch in _CN_DIGITS for ch in run):
        # Digit-by-digit reading (二五六 = 256); a single digit is itself.
        value = 0
        for ch in run:
            value = value * 10 + _CN_DIGITS[ch]
        return value
    total = 0
    pending = 0
    for ch in run:
        if ch in _CN_DIGITS:
            pending = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            total += (pending or 1) * unit
            pending = 0
        else:  # pragma: no cover - the regex only hands in numeral characters
            return None
    return total + pending


#: English chat writes "are" as its sound, r ("how much r the buds"): a lone r between two
#: words of an English question (never beside a number: no model letter).
_CHAT_ARE = re.compile(r"(?<=[a-z] )r(?= [a-z])")

#: "wats the price": chat spells "what's" by its sound; before a determiner or a verb,
#: and with no number before it, it is no unit of power (65 wats is 65 watts).
_CHAT_WHATS = re.compile(
    # after a number it is the unit ("65 wats"), after a model code a word ("m3 wats")
    r"(?<![\d\w])(?:(?<!\d )|(?<=[a-z]\d )|(?<=[a-z]\d\d ))(?<!many )(?<!much )"
    r"(?:wats|wots|wuts|whts)"
    r"(?=\s+(?:the|a|an|ur|your|this|that|its|it's|is|are|on|in|with|up)\b)"
)

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


#: "how many" before an uncountable noun: learners of English (and Chinese 多少, which
#: counts both) say "how many money" for "how much money". Same length as written.
_HOW_MANY_MASS = re.compile(r"\bhow many(?=\s+(?:money|cash)\b)")


class TextNormaliser:
    """Normalises questions; built once from the vocabulary and the series words."""

    __slots__ = (
        "_code_number",
        "_compounds",
        "_context",
        "_lone_code",
        "_lone_codes",
        "_look_alike",
        "_misspelt_heads",
        "_name_words",
        "_nicknames",
        "_numbered_heads",
        "_pinyin",
        "_protected",
        "_scripts",
        "_series_words",
        "_spelling",
        "_spoken_codes",
        "_spoken_measure",
        "_spoken_number",
        "_transliterator",
        "_units_after",
        "_words",
    )

    def __init__(
        self,
        series_words: Iterable[str],
        protected_words: Iterable[str] = (),
        spelling: SpellingCorrector | None = None,
        transliterator: Transliterator | None = None,
        number_heads: Iterable[str] = (),
        names: Iterable[str] = (),
        pinyin: PinyinNames | None = None,
        nicknames: Iterable[str] = (),
        unit_words: Iterable[str] = (),
        scripts: ChineseScripts | None = None,
        letter_codes: tuple[Iterable[str], Iterable[tuple[str, str]]] = ((), ()),
    ) -> None:
        """``number_heads``: Latin name words a model number follows in the catalog's
        names (iphone of "iPhone 15", mate, model, series): an English number word after
        one of them is that model number ("model three" is Model 3). ``names``: the
        catalog's names (a series word some name writes with l or o before a digit keeps
        them as letters). ``pinyin``: catalog Chinese names spelt in pinyin (biyadi han).
        ``unit_words``: Chinese words of the vocabulary's units (公斤, 小时): a numeral
        right before one is a measure (一公斤 → 1公斤), as before the built-in ones."""
        self._spelling = spelling
        self._pinyin = pinyin
        # ``scripts``: traditional characters and regional written forms (幾多, 保固)
        # read as the simplified standard the vocabulary is written in.
        self._scripts = scripts
        # Variant nicknames (大杯, 超大杯): a numeral with a place value before one is the
        # model number they follow (十六大杯); a bare digit is a count there (一大杯水).
        self._nicknames = tuple(sorted((n for n in nicknames if len(n) > 1), key=len))
        unit_words = tuple(unit_words)
        self._units_after = tuple(
            dict.fromkeys((*_UNIT_AFTER, *(w for w in unit_words if w and not w.isascii())))
        )
        # "forty one millimeters", "five hundred grams": a quantity said in words before
        # a unit the vocabulary spells out is that number in the unit (41 millimeters).
        spelt = sorted(
            {w.lower() for w in unit_words if w.isascii() and w.isalpha() and len(w) >= 2},
            key=len,
            reverse=True,
        )
        self._spoken_measure = (
            re.compile(
                r"(?<![a-z'\d.])("
                + _spoken_quantity(pairs=False)
                + r")[\s-]+("
                + "|".join(re.escape(w) for w in spelt)
                + r")(?![a-z])"
            )
            if spelt
            else None
        )
        # one-letter heads are the letter codes of model numbers (the s of S24)
        heads = sorted({h.lower() for h in number_heads if len(h) >= 2}, key=len, reverse=True)
        self._spoken_number = (
            re.compile(
                r"(?<![a-z'])("
                + "|".join(re.escape(h) for h in heads)
                + r")\s+("
                + _EN_NUMBER
                + r")(?![a-z])(?!\s+(?:"
                + "|".join(_COUNTED)
                + r")\b)"
                # "pro five hundred twelve gb", "pro two fifty six gig": the number word
                # opens a size said in words, not a model number.
                + r"(?!\s+(?:hundred|thousand)\b)(?!\s+"
                + _EN_BELOW_HUNDRED
                + r"[\s-]*(?:terabytes?|tb|gigabytes?|gigs?|gb)(?![a-z]))"
            )
            if heads
            else None
        )
        self._transliterator = transliterator
        # ``letter_codes``: the codes before model numbers (s of S24, gt of GT 4) and
        # the lone letters names end with after a word (y of Model Y): said by the
        # letters' English names ("ex one", "g t four", "model why") they are the code.
        codes, lone = letter_codes
        spoken_codes = {form: code for code in codes for form in spoken_letters(code)}
        self._code_number = (
            re.compile(
                # "the 3x one": a letter glued to a number is no code (3x is the zoom)
                r"(?<![a-z'\d])("
                + "|".join(re.escape(f) for f in sorted(spoken_codes, key=len, reverse=True))
                + r")\s+(one|"
                + _EN_NUMBER
                + r")(?![a-z])(?!\s+(?:"
                + "|".join(_COUNTED)
                + r")\b)(?!\s+(?:hundred|thousand)\b)"
            )
            if spoken_codes
            else None
        )
        self._spoken_codes = spoken_codes
        lone_forms = {
            f"{head} {form}": f"{head} {letter}"
            for head, letter in lone
            for form in spoken_letters(letter)
            if form != letter
        }
        self._lone_codes = lone_forms
        self._lone_code = (
            re.compile(
                r"(?<![a-z'\d])("
                + "|".join(re.escape(f) for f in sorted(lone_forms, key=len, reverse=True))
                + r")(?![a-z'])"
            )
            if lone_forms
            else None
        )
        self._series_words = tuple(sorted({w.lower() for w in series_words if w}, key=len))
        self._context = 8 + max((len(w) for w in self._series_words), default=0)
        # A letter l or o between a series word and a digit is the digit it looks like
        # (小米l4 = 小米14, iphone l5), and so is one closing the model number after it
        # (mate 6o): no catalog name writes a letter there.
        written = [n.lower() for n in names]
        look_alike_series = [
            w
            for w in (
                *(w for w in self._series_words if not w.isascii()),
                *sorted({m.group(1) for n in written for m in _HEAD_AND_NUMBER.finditer(n)}),
            )
            if not any(
                re.search(re.escape(w) + r"\s?(?:[lo]\d|\d[lo](?![a-z]))", n) for n in written
            )
        ]
        after_series = "|".join(
            f"(?<={lead}{re.escape(w)}{gap})"
            for w in look_alike_series
            for lead in (("",) if not w.isascii() else ("(?<![a-z])",))
            for gap in ("", " ")
        )
        self._look_alike = (
            re.compile(f"(?:{after_series})(?:[lo](?=\\d)|(\\d)[lo](?![a-z\\d]))")
            if look_alike_series
            else None
        )
        # A series word and the model numbers the catalog's names write right after it
        # (mate → 60): "meta60" is the Mate 60 misspelt, though "meta" is an English word.
        numbered: dict[str, set[str]] = {}
        for name in written:
            for match in _HEAD_AND_NUMBER.finditer(name):
                numbered.setdefault(match.group(1), set()).add(match.group(2))
        self._numbered_heads = {k: frozenset(v) for k, v in numbered.items()}
        name_words = {w for n in written for w in re.findall(r"[a-z]+", n)}
        self._misspelt_heads = (
            re.compile(r"(?<![a-z])([a-z]{4,})(\d+)(?![\d.])") if numbered else None
        )
        self._name_words = frozenset(name_words)
        # "mac book", "think pad", "air pods": a long name word said as two words, each
        # of two letters or more, is that word (a speech recogniser splits compounds).
        self._compounds = _compound_words(name_words)
        # Words that start with a numeral but are not numbers (三电, 七天无理由, 一次充电).
        protected_words = tuple(protected_words)
        self._protected = tuple(
            sorted(
                {w for w in protected_words if w[:1] in _CN_NUMERAL_CHARS}, key=len, reverse=True
            )
        )
        # Chinese vocabulary words: one that starts inside a numeral word and runs past it
        # (电池 of 三电池) splits the text otherwise (毛豆三电池 is 毛豆3 + 电池).
        self._words = frozenset(
            w for w in protected_words if 2 <= len(w) <= _MAX_WORD and not w.isascii()
        )

    def normalise(self, text: str) -> str:
        # Typographic apostrophes are the ASCII one ("haven’t" is "haven't"), length kept.
        out = unicodedata.normalize("NFKC", text).lower().translate(_APOSTROPHES)
        if _ACCENTED_LATIN.search(out):
            # xiaomí, xù háng: a mark over a Latin letter (a slip of the keyboard, a pinyin
            # tone) does not change the word typed.
            out = _ACCENTED_LATIN.sub(_without_accent, out)
        if self._scripts is not None:
            out = self._scripts.standard(out)
        if "wats" in out or "wots" in out or "wuts" in out or "whts" in out:
            out = _CHAT_WHATS.sub("whats", out)
        if " r " in out and out.isascii():
            out = _CHAT_ARE.sub("are", out)
        if "how many" in out:
            out = _HOW_MANY_MASS.sub("how much", out)
        if self._compounds and " " in out:
            out = _WORD_PAIR.sub(self._join_compound, out)
        if self._pinyin is not None:
            out = self._pinyin.replace(out)
        if self._spelling is not None:
            out = self._spelling.correct(out)
        if self._misspelt_heads is not None:
            out = self._misspelt_heads.sub(self._repair_head, out)
        if self._code_number is not None:
            out = self._code_number.sub(self._read_code_number, out)
        if self._lone_code is not None:
            out = self._lone_code.sub(lambda m: self._lone_codes[m.group(1)], out)
        if self._spoken_number is not None:
            out = self._spoken_number.sub(_spoken_model_number, out)
        if "byte" in out or "tb" in out or "gb" in out or "gig" in out:
            out = _SPOKEN_STORAGE.sub(_spoken_storage, out)
        if out.isascii():
            out = _SPOKEN_SIZE.sub(_spoken_size, out)
        if self._spoken_measure is not None:
            out = self._spoken_measure.sub(
                lambda m: f"{parse_spoken_quantity(m.group(1))} {m.group(2)}", out
            )
        if self._look_alike is not None and _LETTER_BEFORE_DIGIT.search(out):
            # 小米l4, 华为mate 6o: l and o typed for 1 and 0 inside a model number
            out = self._look_alike.sub(_digit_look_alike, out)
        if _DIGIT_IN_WORD.search(out):
            # u1tra, pr0: a 1 or 0 typed for the l or o of a name word
            out = _DIGIT_WORD.sub(self._letter_look_alike, out)
        if "gen" in out:
            out = _ORDINAL_WORD_GENERATION.sub(_ordinal_generation, out)
        if "个" in out:
            out = _GE_BEFORE_UNIT.sub(r"\1", out)  # 1个T, 一个T: 个 says nothing
        if _CN_NUMERAL_RUN.search(out):
            out = _CN_NUMERAL_RUN.sub(self._convert_numeral, out)
        if self._transliterator is not None:
            transliterated = self._transliterator.replace(out)
            if transliterated != out and _CN_NUMERAL_RUN.search(transliterated):
                # 华为麦特六十: the numeral follows a series word only once 麦特 is "mate".
                numbered = _CN_NUMERAL_RUN.sub(self._convert_numeral, transliterated)
                if numbered != transliterated:
                    # 麦特六十普罗: the variant word follows a model number only now that
                    # 六十 is 60; one more pass reads it (a pass is linear, two are too).
                    numbered = self._transliterator.replace(numbered)
                transliterated = numbered
            out = transliterated
        # Each of these needs its word (gen, 第) in the text: not looked for without it.
        if "gen" in out:
            out = _ORDINAL_GENERATION.sub(r" \1代", out)
        if "第" in out:
            out = _DI_GENERATION.sub(r"\1代", out)
        if "gen" in out:
            out = _GEN_NUMBER.sub(r" \1代", out)
        if "万" in out:
            out = _WAN_TAIL.sub(r"\1.\2万", out)  # 24万5 is 24.5万 (245,000)
        if "millimet" in out:
            out = _SPELT_MILLIMETRES.sub("mm", out)
        if "in" in out:
            out = _GLUED_INCH.sub(r"\1 inch", out)  # 6.7in: "in" glued to a number is inch
        return _SPACES.sub(" ", out).strip()

    def _letter_look_alike(self, match: re.Match[str]) -> str:
        word = match.group()
        read = word.translate(_LETTERS_OF_DIGITS)
        return read if read in self._name_words and read.isalpha() else word

    def _read_code_number(self, match: re.Match[str]) -> str:
        number = 1 if match.group(2) == "one" else parse_english_number(match.group(2))
        return f"{self._spoken_codes[match.group(1)]}{number}"

    def _join_compound(self, match: re.Match[str]) -> str:
        joined = match.group(1) + match.group(2)
        return match.group(1) if joined in self._compounds else match.group(0)

    def _repair_head(self, match: re.Match[str]) -> str:
        """A word glued to a model number, one edit (OSA) from the one series word the
        catalog's names write before that number, or its consonants with other vowels,
        same first letter: that series word (mete60, meta60 → mate60). Glued to the
        number it reads as no English word."""
        word, number = match.group(1), match.group(2)
        if word in self._name_words:
            return match.group(0)
        found = [
            head
            for head, numbers in self._numbered_heads.items()
            if number in numbers
            and head[0] == word[0]
            and (OSA.distance(word, head) == 1 or _vowels_only_differ(word, head))
        ]
        return f"{found[0]}{number}" if len(found) == 1 else match.group(0)

    def _convert_numeral(self, match: re.Match[str]) -> str:
        run = match.group(0)
        text = match.string
        if text.startswith(self._protected, match.start()) and not self._split_after_series(
            text, match.start()
        ):
            return run
        tail = ""
        if text.startswith(_NUMERAL_FUNCTION_WORDS, match.start()):
            return run  # 苹果一样吗: the numeral opens a function word (一样), no number
        if len(run) > 1 and text.startswith(_NUMERAL_FUNCTION_WORDS, match.end() - 1):
            run, tail = run[:-1], run[-1]
        elif len(run) > 1 and self._protected:
            # 小米十四三围: a vocabulary word that starts with a numeral (三围) ends the
            # number before it; words are short, so only the run's last characters.
            for cut in range(max(1, len(run) - 3), len(run)):
                if text.startswith(self._protected, match.start() + cut):
                    run, tail = run[:cut], run[cut:]
                    break
        # Context words are short: a bounded window keeps normalisation linear.
        window = self._context
        before = text[max(0, match.start() - window) : match.start()].rstrip()
        after = (tail + text[match.end() : match.end() + window]).lstrip()
        in_model_context = (
            (before and before[-1].isascii() and before[-1].isalpha())
            or before.endswith("第")
            or any(before.endswith(word) for word in self._series_words)
            or (after.startswith(self._units_after) and not _is_relative_generation(before, after))
            # 两百三十多克: an approximate 多 / 来 / 余 after a round number, then the unit
            or (
                after[:1] in _APPROXIMATE
                and after[1:].startswith(self._units_after)
                and run[-1] in _MULTIPLIERS
            )
            or _LATIN_UNIT_AFTER.match(text, match.end()) is not None
            or _is_digit_string(run)
            # 一百二十八, 五百一十二: a numeral with a hundreds place is a number wherever
            # it stands (no word of the language is one); left as written it would go unread.
            or (
                len(run) >= 3
                and ("百" in run[1:] or "千" in run[1:])
                # 一万三千九百: a part of a larger number, read with its 万 or not at all
                and text[match.start() - 1 : match.start()] not in ("万", "亿")
                and text[match.end() : match.end() + 1] not in ("万", "亿")
            )
            or (
                after.startswith(self._nicknames)
                and any(ch in _MULTIPLIERS for ch in run)
                and bool(self._nicknames)
            )
        )
        if not in_model_context:
            return run + tail
        after_digit = match.start() > 0 and text[match.start() - 1].isdigit()
        if after_digit and run[0] in _MULTIPLIERS:
            # 5千毫安: a multiplier after digits scales them; left as written, never 51000.
            return run + tail
        split = _split_digit_string(run)
        if split is not None:
            number, digits = split
            if digits is None:
                return run + tail  # 十五六 is "15 or 16": no one number, left unread
            # 十五二五六: a model number then a storage read digit by digit (15, 256)
            return f"{' ' if after_digit else ''}{number} {digits}{tail}"
        value = parse_chinese_numeral(run)
        if value is None:
            return run + tail
        # 小米十四512G, GT4四十六毫米, 14一个T: two numbers, never one (14512, 446, 141).
        glued = not tail and text[match.end() : match.end() + 1].isdigit()
        lead = " " if after_digit else ""
        return f"{lead}{value} " if glued else f"{lead}{value}{tail}"

    def _split_after_series(self, text: str, start: int) -> bool:
        """Whether the numeral word at ``start`` right after a series word (毛豆三电池) is
        split by a vocabulary word that starts inside it and runs past its end (电池): the
        numeral is then the model number, the rest that word."""
        before = text[max(0, start - self._context) : start].rstrip()
        if not any(before.endswith(w) for w in self._series_words if w):
            return False
        word = next(w for w in self._protected if text.startswith(w, start))
        return any(
            text[start + k : start + k + size] in self._words
            for k in range(1, len(word))
            for size in range(len(word) - k + 1, _MAX_WORD + 1)
        )


def _vowels_only_differ(word: str, other: str) -> bool:
    """Same length, same consonants in the same places: only vowels changed (meta, mate)."""
    return len(word) == len(other) and all(
        a == b or (a in _VOWELS and b in _VOWELS) for a, b in zip(word, other, strict=True)
    )


_VOWELS = frozenset("aeiou")


#: A 1 or 0 beside a Latin letter, and a word of letters, 1 and 0 with two letters or
#: more (u1tra, pr0; not s10 or m1).
_DIGIT_IN_WORD = re.compile(r"[a-z][01]|[01][a-z]")
_DIGIT_WORD = re.compile(r"(?<![a-z\d])(?=[a-z01]*[a-z][a-z01]*[a-z])[a-z01]{3,}(?![a-z\d])")
_LETTERS_OF_DIGITS = str.maketrans("10", "lo")

#: Latin letters with a diacritic (Latin-1 Supplement and Latin Extended-A/B).
_ACCENTED_LATIN = re.compile("[\u00e0-\u00f6\u00f8-\u00ff\u0100-\u024f]")


def _without_accent(match: re.Match[str]) -> str:
    base = unicodedata.normalize("NFKD", match.group())[:1]
    return base if base.isascii() else match.group()


def _digit_look_alike(match: re.Match[str]) -> str:
    digits = match.group(1) or ""
    return digits + ("1" if match.group(0)[-1] == "l" else "0")


def _spoken_model_number(match: re.Match[str]) -> str:
    return f"{match.group(1)} {parse_english_number(match.group(2))}"


#: The English names of the Latin letters (a general fact of the language).
ENGLISH_LETTER_NAMES: dict[str, tuple[str, ...]] = {
    "a": ("ay",),
    "b": ("bee",),
    "c": ("see", "cee"),
    "d": ("dee",),
    "f": ("ef",),
    "g": ("gee",),
    "h": ("aitch",),
    "i": ("eye",),
    "j": ("jay",),
    "k": ("kay",),
    "l": ("el",),
    "m": ("em",),
    "n": ("en",),
    "p": ("pee",),
    "q": ("cue",),
    "r": ("ar",),
    "s": ("es", "ess"),
    "t": ("tee",),
    "v": ("vee",),
    "x": ("ex",),
    "y": ("why", "wye"),
    "z": ("zee", "zed"),
}


def spoken_letters(code: str) -> list[str]:
    """The ways a letter code is said: as written, its letters apart ("g t"), and by
    the letters' English names ("gee tee", "ex")."""
    forms: list[list[str]] = [[]]
    for letter in code:
        forms = [[*f, n] for f in forms for n in (letter, *ENGLISH_LETTER_NAMES.get(letter, ()))]
    out = [code, *(" ".join(f) for f in forms)]
    return list(dict.fromkeys(out))


#: The shortest name word read from two spoken parts, and the shortest part.
_SHORTEST_COMPOUND = 6
_SHORTEST_PART = 2


def _compound_words(name_words: Iterable[str]) -> frozenset[str]:
    """The long Latin name words a question may say as two words (macbook)."""
    return frozenset(w for w in name_words if len(w) >= _SHORTEST_COMPOUND and w.isalpha())


#: A word and the next one (looked at, not consumed: pairs overlap).
_WORD_PAIR = re.compile(r"(?<![a-z'])([a-z]{2,}) (?=([a-z]{2,})(?![a-z']))")


def _spoken_storage(match: re.Match[str]) -> str:
    number, unit = match.group(1) or "one", match.group(2) or match.group(4)
    if number.isdigit() and unit in ("tb", "gb"):
        return match.group(0)  # "1tb", "512 gb": written as the value forms read them
    value = number if number.isdigit() else str(parse_spoken_quantity(number))
    return f"{value}{'tb' if unit.startswith('t') else 'gb'}"


def _ordinal_generation(match: re.Match[str]) -> str:
    return f" {_EN_ORDINALS[match.group(1)]}代 "


#: Numerals that are digits of a number read one by one (二五六 is 256, 五一二 is 512).
_BARE_DIGITS = frozenset("零〇一二三四五六七八九幺")


def _is_digit_string(run: str) -> bool:
    # Three or more bare digits in a row are a number read digit by digit: no word is
    # built of three numerals without a unit (一五一十 has one, 三三两两 a 两).
    return len(run) >= 3 and all(ch in _BARE_DIGITS for ch in run)


def _split_digit_string(run: str) -> tuple[int, int | None] | None:
    """A numeral with a unit (十五) followed by bare digits (二五六) is two numbers: a digit
    right after a digit is no place value. None when the run is well formed; the second
    value None when the split is not clear (十五六 is "15 or 16", a range)."""
    if not any(ch in _MULTIPLIERS for ch in run):
        return None
    cut = next(
        (i for i in range(1, len(run)) if run[i] in _CN_DIGITS and run[i - 1] in _CN_DIGITS),
        None,
    )
    if cut is None:
        return None
    head, rest = run[:cut], run[cut:]
    number = parse_chinese_numeral(head)
    if number is None or not any(ch in _MULTIPLIERS for ch in head) or not _is_digit_string(rest):
        return 0, None
    return number, parse_chinese_numeral(rest)


def _is_relative_generation(before: str, after: str) -> bool:
    # 上一代 / 下一代 / 这一代 are "previous/next/this generation", not generation 1.
    return after.startswith("代") and before[-1:] in {
        "上",
        "下",
        "这",
        "那",
        "前",
        "新",
        "老",
        "每",
    }
