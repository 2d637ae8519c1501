"""Chinese transliterations of the Latin variant words of product names (普罗 for Pro).

Shoppers write a variant word the way it sounds: 普罗 or 普肉 for Pro, 麦克斯 for Max, 普拉斯
for Plus. A run of Chinese characters right after a model number or a Latin name word is
replaced by the variant word whose consonant skeleton it shares (pypinyin's readings: the
initial of each syllable and a nasal coda; the Latin word's consonants, x as ks; voiced and
voiceless stops, r and l are one sound to a transliteration), when exactly one variant word
fits and the run is no common word of the general dictionary and has no function
character (漂亮, 配了 stay). The product
grammar then reads "苹果16 pro" as it reads any written name, and refuses a variant the
catalog does not sell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

from pypinyin import Style, lazy_pinyin, pinyin

_CJK_RUN = re.compile(r"(?<=[0-9a-z])\s?([\u4e00-\u9fff]+)")
#: A run before an edition head after a demonstrative or 的 (那个普拉斯版本): a variant
#: word named apart from the model's name, read as it sounds like one after the name.
_EDITION_RUN = re.compile(
    r"(?<=[那这的个])((?:(?![那这的个])[\u4e00-\u9fff]){2,4}?)(?=\s?(?:版|款))"
)
_MAX_WINDOW = 4
#: 加 right after a model number, not before another number: the spoken "+".
_PLUS_READ = re.compile(r"(?<=\d)\s?加(?!\s?\d)")
#: Dictionary words are short: looking further would make long runs quadratic.
_LONGEST_WORD = 8
#: A run this frequent in the general dictionary is a word, not a transliteration.
_COMMON = 100
#: Function characters: no transliteration uses them (配了 is "came with", not Pro). The
#: personal pronouns and the prepositions of whom for (给你, 给我女朋友, 替他) are among them:
#: a closed class of words of their own, never a sound of a Latin word; but 你 is not, as
#: 迷你 is how "mini" is written.
FUNCTION_CHARACTERS = _FUNCTION = frozenset(
    "的了吗呢吧啊呀么是有在和与跟也都就还要会能可很多几哪啥怎什为对用个不没我您他她它咱俺给替"
)
#: Aspect particles, 的 and 得: after them a character is a word of its own (破了, 破的).
_AFTER_VERB = frozenset("了过着掉的得")
_STOPS = str.maketrans({"b": "p", "d": "t", "g": "k", "c": "k", "q": "k", "r": "l"})
_INITIALS: tuple[str, ...] = (
    *("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q"),
    *("x", "r", "z", "c", "s"),
)


def latin_skeleton(word: str, *, drop_coda_l: bool = False) -> str:
    """The consonants of a Latin word as a transliteration keeps them.

    ``drop_coda_l``: without an l that closes a syllable before another consonant
    (the ul of ultra): Chinese syllables end in no l, so transliterations often drop it
    (乌特拉, 乌托拉 for Ultra)."""
    letters = word.lower().replace("ph", "f").replace("x", "ks")
    if drop_coda_l:
        letters = _CODA_L.sub("", letters)
    letters = letters.translate(_STOPS)
    out = [ch for ch in letters if ch.isalpha() and ch not in "aeiouyw"]
    return "".join(ch for i, ch in enumerate(out) if i == 0 or out[i - 1] != ch)


_CODA_L = re.compile(r"(?<=[aeiou])l(?=[b-df-hj-np-tv-z]|$)")


def syllable_skeleton(syllable: str) -> str:
    """The consonants of one toneless pinyin syllable: its initial and a nasal coda."""
    initial = next((i for i in _INITIALS if syllable.startswith(i)), "")
    skeleton = initial.translate(_STOPS) if len(initial) == 1 else initial
    if syllable.endswith(("n", "ng")) and len(syllable) > len(initial) + 1:
        skeleton += "n"
    return skeleton


class Transliterator:
    """Replaces transliterated variant words after a model's name by the Latin word."""

    __slots__ = (
        "_alone",
        "_alone_run",
        "_by_skeleton",
        "_char_sounds",
        "_code_sounds",
        "_common",
        "_editions",
        "_name_prefixes",
        "_name_sounds",
        "_next_sounds",
        "_nicknames",
        "_openings",
        "_plus_words",
        "_reads_plus",
        "_series",
        "_series_run",
        "_units",
    )

    def __init__(
        self,
        variant_words: Iterable[str],
        common_words: Mapping[str, int],
        series_words: Mapping[str, Iterable[str]] | None = None,
        vocabulary: Iterable[str] = (),
        nicknames: Mapping[str, str] | None = None,
        units: Iterable[str] = (),
        codes: Iterable[str] = (),
        lone_codes: Iterable[tuple[str, str]] = (),
        names: Iterable[str] = (),
    ) -> None:
        """``series_words``: brand word → the Latin series words of its names that stand
        right before a model number (华为 → mate): 麦特 between 华为 and 60 is Mate.
        ``vocabulary``: phrases of the attribute and constraint vocabulary; one that
        starts with 加 (加充电盒: "with the case") keeps its 加.
        ``nicknames``: one-character variant nicknames (破 → pro, a clipped Pro): read
        right after a model number when the character is no verb there (破了, 破的) and
        starts no dictionary word (破损, 破解).
        ``units``: the Chinese words of units of measure (寸, 公里): right after a number
        such a word is its unit, never the sound of a Latin word (6.8寸以上 is no "gen").
        ``codes``: the letter codes before the catalog's model numbers (s of S24, gt of
        GT 4): said by their letters' Chinese names right before a number (艾斯二十四,
        吉踢四) they are the code. ``lone_codes``: (Latin word, letter) of names ending in
        a lone letter (Model Y): the letter's name after that word, transliterated after
        the brand (特斯拉魔豆歪), is the letter.
        ``names``: the catalog's names: a long Latin name word said in Chinese
        characters by its sound (麦克布克, 艾尔泡兹) is the word, and so is the word a
        name has after it, right after it (麦克布克艾尔: MacBook Air)."""
        self._name_sounds, self._next_sounds = name_sounds(names)
        self._name_prefixes = frozenset(k[:i] for k in self._name_sounds for i in range(len(k) + 1))
        self._char_sounds: dict[str, frozenset[str]] = {}
        self._code_sounds = code_sounds(codes)
        self._alone: dict[str, dict[tuple[str, ...], str]] = {}
        for head, letter in lone_codes:
            self._alone.setdefault(head, {}).update(code_sounds((letter,)))
        self._units = tuple(sorted({u for u in units if u and not u.isascii()}, key=len))
        self._nicknames = {
            k: v.lower() for k, v in (nicknames or {}).items() if len(k) == 1 and not k.isascii()
        }
        vocabulary = tuple(vocabulary)
        self._plus_words = tuple(sorted({w for w in vocabulary if w.startswith("加")}))
        self._openings = vocabulary_openings(vocabulary)
        found: dict[str, set[str]] = {}
        for word in variant_words:
            word = word.lower().strip()
            if len(word) >= 3 and word.isascii() and word.isalpha():
                found.setdefault(latin_skeleton(word), set()).add(word)
                dropped = latin_skeleton(word, drop_coda_l=True)
                if len(dropped) >= 2:
                    found.setdefault(dropped, set()).add(word)
        # A skeleton two words share (or an empty one) reads neither.
        # One consonant is too little to go by (neo).
        self._by_skeleton = {
            s: next(iter(ws)) for s, ws in found.items() if len(ws) == 1 and len(s) >= 2
        }
        self._common = common_words
        # 迷你版 is a dictionary word, but it is 迷你 and the edition word after it
        self._editions = edition_words(variant_words)
        self._reads_plus = "plus" in self._by_skeleton.values()
        self._series: dict[str, dict[str, str]] = {}
        for brand, words in (series_words or {}).items():
            by: dict[str, set[str]] = {}
            for word in words:
                if len(word) >= 3 and word.isascii() and word.isalpha():
                    by.setdefault(latin_skeleton(word), set()).add(word.lower())
                    # Model is 魔豆: no Chinese syllable ends in l
                    dropped = latin_skeleton(word, drop_coda_l=True)
                    if dropped != latin_skeleton(word):
                        by.setdefault(dropped, set()).add(word.lower())
            kept = {k: next(iter(v)) for k, v in by.items() if len(v) == 1 and len(k) >= 2}
            if kept and not brand.isascii():
                self._series[brand.lower()] = kept
        self._series_run = (
            re.compile(
                "("
                + "|".join(re.escape(b) for b in sorted(self._series, key=len, reverse=True))
                # 华为麦特六十: the number may be a Chinese numeral, no part of the run.
                + r")((?:(?![零〇一二两三四五六七八九十百千])[\u4e00-\u9fff]){2,4})"
                + r"(?=\s?[\d零〇一二两三四五六七八九十])"
            )
            if self._series
            else None
        )
        alone_brands = [b for b, ws in self._series.items() if set(ws.values()) & set(self._alone)]
        self._alone_run = (
            re.compile(
                "("
                + "|".join(re.escape(b) for b in sorted(alone_brands, key=len, reverse=True))
                + r")((?:(?![零〇一二两三四五六七八九十])[\u4e00-\u9fff]){3,7})"
            )
            if alone_brands
            else None
        )

    def replace(self, text: str) -> str:
        if self._reads_plus and "加" in text:
            text = _PLUS_READ.sub(self._replace_plus, text)
        if self._code_sounds and _NUMERAL_AHEAD.search(text):
            text = _LETTER_RUN.sub(self._replace_letters, text)
        if self._name_sounds:
            text = _NAME_RUN.sub(self._replace_names, text)
        if self._series_run is not None:
            text = self._series_run.sub(self._replace_series, text)
        if self._alone_run is not None:
            text = self._alone_run.sub(self._replace_alone, text)
        if self._by_skeleton and ("版" in text or "款" in text):
            text = _EDITION_RUN.sub(self._replace_edition_run, text)
        if not (self._by_skeleton or self._nicknames) or not _CJK_RUN.search(text):
            return text
        return _CJK_RUN.sub(self._replace_run, text)

    def _replace_edition_run(self, match: re.Match[str]) -> str:
        # Only a run that reads whole as variant words (普拉斯, 普罗麦克斯); 加大 stays.
        run = match.group(1)
        words, index = self._words_from(run, 0)
        return " " + " ".join(words) if words and index == len(run) else run

    def _replace_plus(self, match: re.Match[str]) -> str:
        # 加 is how "+" is read: 24加 is the S24+. A dictionary word it starts (加价,
        # 加大, 加长) is that word; before a number it is a sum (12加512).
        start = match.end() - 1
        text = match.string
        if text.startswith(self._plus_words, start) or any(
            self._common.get(text[start:end], 0) >= _COMMON
            for end in range(start + 2, min(len(text), start + _LONGEST_WORD) + 1)
        ):
            return match.group(0)
        return " plus "

    def _replace_letters(self, match: re.Match[str]) -> str:
        # The longest tail of the run said as a code's letters (三星艾斯 → 三星 s).
        run = match.group(1)
        first = max(0, len(run) - _MAX_CODE_SYLLABLES)
        syllables = lazy_pinyin(run[first:], style=Style.NORMAL)
        if len(syllables) != len(run) - first:
            return run
        for start in range(first, len(run)):
            tail = run[start:]
            if self._common.get(tail, 0) >= _COMMON or any(ch in _FUNCTION for ch in tail):
                continue
            if start and self._common.get(run[start - 1 : start + 1], 0) >= _COMMON:
                continue  # the tail's first character ends a word before it
            code = self._code_sounds.get(tuple(syllables[start - first :]))
            if code is not None:
                return f"{run[:start]} {code}"
        return run

    def _replace_names(self, match: re.Match[str]) -> str:
        run = match.group(0)
        if not self._may_sound_a_name(run):
            return run  # most runs: no pinyin of the run in context is needed
        syllables = lazy_pinyin(run, style=Style.NORMAL)
        if len(syllables) != len(run):
            return run
        out: list[str] = []
        index = 0
        start = 0
        while index <= len(run) - _NAME_WINDOW[0]:
            found = self._name_at(run, syllables, index, self._name_sounds, _NAME_WINDOW)
            if found is None:
                index += 1
                continue
            word, end = found
            out += [run[start:index], f" {word} "]
            nexts = self._next_sounds.get(word)
            if nexts:
                after = self._name_at(run, syllables, end, nexts, _NEXT_WINDOW)
                if after is not None:
                    out.append(f"{after[0]} ")
                    end = after[1]
            index = start = end
        if not out:
            return run
        out.append(run[start:])
        return "".join(out)

    def _may_sound_a_name(self, run: str) -> bool:
        """Whether some window of ``run`` could sound a name word under any reading of
        its characters (a cheap first look). pypinyin's readings in context are among a
        character's dictionary readings for all but 5 of its 47,111 phrases (checked
        once; in the one that matters, 旋干转坤, no demo name word fits), so a run this finds
        nothing in holds no name the full reading would find."""
        shortest, longest = _NAME_WINDOW
        for index in range(len(run) - shortest + 1):
            partial = {""}
            for end in range(index, min(len(run), index + longest)):
                char = run[end]
                if char in _FUNCTION or char in _NUMERAL_CHARACTERS:
                    break
                grown: set[str] = set()
                for sound in self._sounds_of(char):
                    for head in partial:
                        joined = head + sound
                        if joined not in self._name_prefixes:
                            continue
                        if sound and end - index >= shortest - 1 and joined in self._name_sounds:
                            return True
                        grown.add(joined)
                if not grown:
                    break
                partial = grown
        return False

    def _sounds_of(self, char: str) -> frozenset[str]:
        """The name-syllables of every dictionary reading of ``char`` (remembered)."""
        sounds = self._char_sounds.get(char)
        if sounds is None:
            readings = pinyin(char, style=Style.NORMAL, heteronym=True)[0]
            sounds = self._char_sounds[char] = frozenset(map(_name_syllable, readings))
        return sounds

    def _name_at(
        self,
        run: str,
        syllables: Sequence[str],
        index: int,
        sounds: Mapping[str, str],
        sizes: tuple[int, int],
    ) -> tuple[str, int] | None:
        """The name word the characters at ``index`` sound like, and where they end: no
        dictionary word among them or across either edge, no function character."""
        for size in range(min(sizes[1], len(run) - index), sizes[0] - 1, -1):
            end = index + size
            window = run[index:end]
            if (
                self._common.get(window, 0) >= _COMMON
                or any(ch in _FUNCTION or ch in _NUMERAL_CHARACTERS for ch in window)
                # a closing vowel adds no sound: it is the next word's (麦克布克|艾尔)
                or not _name_syllable(syllables[end - 1])
                or self._holds_a_word(run, index, end)
            ):
                continue
            word = sounds.get("".join(_name_syllable(s) for s in syllables[index:end]))
            if word is not None:
                return word, end
        return None

    def _holds_a_word(self, run: str, index: int, end: int) -> bool:
        """Whether a dictionary word lies inside run[index:end] or across an edge of it
        (老婆 of 老婆说, 耳机 of 降噪耳机, 特斯拉 of 特斯拉小)."""
        return any(
            self._common.get(run[a:b], 0) >= _COMMON
            for a in range(max(0, index - _LONGEST_WORD + 1), end)
            for b in range(max(a + 2, index + 1), min(len(run), a + _LONGEST_WORD) + 1)
            if b > index and a < end
        )

    def _replace_alone(self, match: re.Match[str]) -> str:
        # 特斯拉魔豆歪: the brand, its series word as it sounds, then a lone letter's name.
        brand, run = match.group(1), match.group(2)
        for size in range(min(4, len(run) - 1), 1, -1):
            head, rest = run[:size], run[size:]
            if self._common.get(head, 0) >= _COMMON or any(ch in _FUNCTION for ch in head):
                continue
            syllables = lazy_pinyin(head, style=Style.NORMAL)
            if len(syllables) != size:
                continue
            word = self._series[brand].get("".join(syllable_skeleton(s) for s in syllables))
            sounds = self._alone.get(word or "")
            if not sounds:
                continue
            for end in range(1, min(3, len(rest)) + 1):
                letter = sounds.get(tuple(lazy_pinyin(rest[:end], style=Style.NORMAL)))
                # the letter's name starts no dictionary word (歪曲)
                if letter is not None and not any(
                    self._common.get(rest[:stop], 0) >= _COMMON
                    for stop in range(end + 1, min(len(rest), end + _LONGEST_WORD) + 1)
                ):
                    return f"{brand}{word} {letter} {rest[end:]}"
        return match.group(0)

    def _replace_series(self, match: re.Match[str]) -> str:
        brand, run = match.group(1), match.group(2)
        if self._common.get(run, 0) >= _COMMON or any(ch in _FUNCTION for ch in run):
            return match.group(0)
        syllables = lazy_pinyin(run, style=Style.NORMAL)
        if len(syllables) != len(run):
            return match.group(0)
        skeleton = "".join(syllable_skeleton(s) for s in syllables)
        word = self._series[brand].get(skeleton)
        return f"{brand}{word} " if word is not None else match.group(0)

    def _replace_run(self, match: re.Match[str]) -> str:
        run = match.group(1)
        if self._units and run.startswith(self._units) and _after_digit(match):
            return match.group(0)
        words: list[str] = []
        index = 0
        nickname = self._nicknames.get(run[0])
        if nickname is not None and _after_digit(match) and self._is_nickname(run):
            words.append(nickname)
            index = 1
        read, index = self._words_from(run, index)
        words.extend(read)
        if not words:
            return match.group(0)
        return " " + " ".join(words) + " " + run[index:]

    def _words_from(self, run: str, index: int) -> tuple[list[str], int]:
        """The variant words ``run`` reads as from ``index`` on, and where they stop."""
        words: list[str] = []
        while index < len(run):
            word = self._word_at(run, index)
            if word is None:
                break
            words.append(word[0])
            index += word[1]
        return words, index

    def _is_nickname(self, run: str) -> bool:
        # An aspect particle or 的 after it makes the character the verb or adjective it
        # is (破了: broken); a dictionary word it starts is that word (破损, 破解).
        # What follows must open a word of the question (破屏险 is "screen insurance").
        if run[1:2] in _AFTER_VERB or not opens_a_word(run[1:], self._openings):
            return False
        return not any(
            self._common.get(run[:end], 0) for end in range(2, min(len(run), _LONGEST_WORD) + 1)
        )

    def _word_at(self, run: str, index: int) -> tuple[str, int] | None:
        for size in range(min(_MAX_WINDOW, len(run) - index), 1, -1):
            window = run[index : index + size]
            if self._common.get(window, 0) >= _COMMON or any(ch in _FUNCTION for ch in window):
                continue
            if any(
                self._common.get(run[index:end], 0)
                and run[index + size : end] not in self._editions
                for end in range(index + size + 1, min(len(run), index + _LONGEST_WORD) + 1)
            ):
                continue  # a longer dictionary word starts here (拍立得)
            syllables = lazy_pinyin(window, style=Style.NORMAL)
            if len(syllables) != size:
                continue
            skeleton = "".join(syllable_skeleton(s) for s in syllables)
            word = self._by_skeleton.get(skeleton)
            if word is not None:
                return word, size
        return None


#: How Chinese speakers say the Latin letters (a general fact of the language), as
#: toneless pinyin syllables: 艾斯 is S, 吉踢 is GT, 艾克斯 is X, 埃姆 is M, 歪 is Y. The
#: characters vary (吉踢, 记提; 艾斯, 爱斯); their sound does not.
LETTER_NAMES: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "a": (("ei",), ("ai",)),
    "b": (("bi",),),
    "c": (("xi",), ("sei",)),
    "d": (("di",),),
    "e": (("yi",),),
    "f": (("ai", "fu"), ("ei", "fu")),
    "g": (("ji",),),
    "h": (("ai", "qi"), ("ai", "chi"), ("ei", "qi")),
    "i": (("ai",),),
    "j": (("jie",),),
    "k": (("kai",),),
    "l": (("ai", "lu"), ("ai", "le"), ("ei", "le")),
    "m": (("ai", "mu"), ("ei", "mu")),
    "n": (("en",), ("ai", "en")),
    "o": (("ou",),),
    "p": (("pi",),),
    "q": (("kiu",), ("qiu",)),
    "r": (("a",), ("a", "er")),
    "s": (("ai", "si"), ("ei", "si")),
    "t": (("ti",),),
    "u": (("you",),),
    "v": (("wei",),),
    "w": (("da", "bu", "liu"),),
    "x": (("ai", "ke", "si"), ("ei", "ke", "si")),
    "y": (("wai",),),
    "z": (("zei",), ("zai",)),
}
_CODE_BEFORE_NUMBER = re.compile(r"(?<![a-z])([a-z]{1,2})\s?\d")
_NUMERAL_AHEAD = re.compile(r"\s?[\d零〇一二两三四五六七八九十]")
_MAX_CODE_SYLLABLES = 6
#: A run of Chinese characters, no numeral among them, right before a number.
_LETTER_RUN = re.compile(
    r"((?:(?![零〇一二两三四五六七八九十百千])[\u4e00-\u9fff]){1,12})"
    r"(?=\s?[\d零〇一二两三四五六七八九十])"
)


def letter_codes(names: Iterable[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The letter codes of the catalog's names: one or two Latin letters right before a
    model number (the s of "S24", the gt of "GT 4", the m of "M3"), and a lone letter a
    name ends with after a Latin word (("model", "y") of "Model Y")."""
    numbered: list[str] = []
    alone: list[tuple[str, str]] = []
    for name in names:
        lowered = name.lower()
        for match in _CODE_BEFORE_NUMBER.finditer(lowered):
            if match.group(1) not in numbered:
                numbered.append(match.group(1))
        words = lowered.split()
        if (
            len(words) >= 2
            and len(words[-1]) == 1
            and words[-1].isalpha()
            and words[-2].isascii()
            and words[-2].isalpha()
            and (words[-2], words[-1]) not in alone
        ):
            alone.append((words[-2], words[-1]))
    return numbered, alone


def code_sounds(codes: Iterable[str]) -> dict[tuple[str, ...], str]:
    """Every way of saying each code by its letters' Chinese names (toneless pinyin) →
    the code; a sound two codes share reads neither."""
    found: dict[tuple[str, ...], set[str]] = {}
    for code in codes:
        sounds: list[tuple[str, ...]] = [()]
        for letter in code:
            sounds = [s + n for s in sounds for n in LETTER_NAMES.get(letter, ())]
        for sound in sounds:
            if sound:
                found.setdefault(sound, set()).add(code)
    return {k: next(iter(v)) for k, v in found.items() if len(v) == 1}


_NUMERAL_CHARACTERS = frozenset("零〇一二两三四五六七八九十百千")
_NAME_RUN = re.compile(r"[\u4e00-\u9fff]{3,}")
#: Characters a name word's sound takes alone (飞巴兹, 麦克布克), and the word after it.
_NAME_WINDOW = (3, 5)
_NEXT_WINDOW = (1, 3)
#: The fewest consonants a name word is read by, its sound alone: fewer fit chance runs.
_NAME_CONSONANTS = 3
_SHORTEST_NAME_WORD = 6
_SIBILANT_INITIALS = frozenset(("z", "c", "s", "zh", "ch", "sh", "j", "q", "x"))


def _name_syllable(syllable: str) -> str:
    """A syllable's consonants as a name word's sound is compared: sibilants are one (兹,
    斯, 新 for s, ds, th), 尔 is the r or l it writes."""
    if syllable == "er":
        return "l"
    initial = next((i for i in _INITIALS if syllable.startswith(i)), "")
    head = "s" if initial in _SIBILANT_INITIALS else initial.translate(_STOPS)
    if syllable.endswith(("n", "ng")) and len(syllable) > len(initial) + 1:
        head += "n"
    return head


def name_word_skeletons(word: str) -> set[str]:
    """The consonant skeletons a transliteration of a Latin name word may keep: th, ds
    and ts as one sibilant, an l or r closing a syllable or after a consonant dropped
    (Chinese syllables end in no l and start with no cluster), a final stop dropped."""
    letters = word.lower().replace("ph", "f").replace("th", "s").replace("x", "ks")
    letters = re.sub(r"[dt]s$", "s", letters)
    letters = re.sub(r"c(?=[eiy])", "s", letters).replace("z", "s")
    letters = letters.translate(_STOPS)
    base = [ch for ch in letters if ch.isalpha() and ch not in "aeiouyw"]
    if base[1:] and base[0] == "h":
        base = base[1:]
    forms = {"".join(base)}
    coda = re.sub(r"(?<=[aeiou])l(?=[b-df-hj-np-tv-z]|$)", "", letters)
    cluster = re.sub(r"(?<=[b-df-hj-km-np-tv-z])l", "", letters)
    both = re.sub(r"(?<=[b-df-hj-km-np-tv-z])l", "", coda)
    for form in (coda, cluster, both):
        forms.add("".join(ch for ch in form if ch.isalpha() and ch not in "aeiouyw"))
    forms |= {f[:-1] for f in forms if f[-1:] in ("p", "t", "k")}
    return {"".join(ch for i, ch in enumerate(f) if i == 0 or f[i - 1] != ch) for f in forms}


def name_sounds(names: Iterable[str]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Skeleton → the long Latin name word it sounds as (a skeleton two words share
    reads neither), and for each such word, skeleton → a word its names have after it."""
    names = [n.lower() for n in names]
    words = {w for n in names for w in _LATIN_WORD.findall(n)}
    found: dict[str, set[str]] = {}
    for word in words:
        if len(word) >= _SHORTEST_NAME_WORD and word not in _GENERATION_WORDS:
            for skeleton in name_word_skeletons(word):
                # the sibilants are one sound of nine initials: two fit too much (series)
                if len(skeleton) >= _NAME_CONSONANTS and skeleton.count("s") <= 1:
                    found.setdefault(skeleton, set()).add(word)
    sounds = {k: next(iter(v)) for k, v in found.items() if len(v) == 1}
    following: dict[str, dict[str, set[str]]] = {}
    for name in names:
        for before, after in pairwise(name.split()):
            if before in sounds.values() and after.isascii() and after.isalpha():
                for skeleton in name_word_skeletons(after):
                    if skeleton:
                        following.setdefault(before, {}).setdefault(skeleton, set()).add(after)
    nexts = {
        w: {k: next(iter(v)) for k, v in by.items() if len(v) == 1} for w, by in following.items()
    }
    return sounds, nexts


def edition_words(variant_suffixes: Iterable[str]) -> frozenset[str]:
    """The Chinese words one variant suffix adds to another ("pro版" is "pro" and 版):
    after a variant word they name that variant's edition, no variant of their own."""
    words = {w.lower().strip() for w in variant_suffixes}
    return frozenset(
        rest
        for word in words
        for short in words
        if short
        and word.startswith(short)
        and (rest := word[len(short) :].strip())
        and not any(ch.isascii() for ch in rest)
    )


#: Words after a model number that mark its generation, not a variant.
_GENERATION_WORDS = frozenset(("gen", "generation"))


def variant_words(names: Iterable[str]) -> list[str]:
    """Latin words after a model number in the catalog's names (the Pro and Max of
    "iPhone 15 Pro Max", the Ultra of "Galaxy S24 Ultra"): the words shoppers
    transliterate."""
    found: list[str] = []
    for name in names:
        numbered = False
        for word in name.lower().split():
            if (
                numbered
                and word.isalpha()
                and word.isascii()
                and word not in _GENERATION_WORDS
                and word not in found
            ):
                found.append(word)
            numbered = numbered or any(ch.isdigit() for ch in word)
    return found


def brand_series_words(
    names_by_brand: Mapping[str, Iterable[str]],
) -> dict[str, list[str]]:
    """brand → the Latin words right before a model number in its catalog names ("mate"
    of "Mate 60 Pro"), without the brand's own words."""
    out: dict[str, list[str]] = {}
    for brand, names in names_by_brand.items():
        found: list[str] = []
        for name in names:
            words = name.lower().split()
            for before, word in pairwise(words):
                if (
                    word[:1].isdigit()
                    and before.isalpha()
                    and before.isascii()
                    and before not in found
                ):
                    found.append(before)
        out[brand] = found
    return out


def vocabulary_openings(vocabulary: Iterable[str]) -> frozenset[str]:
    """The first two characters of every Chinese phrase of the vocabulary (one for a
    one-character phrase): where a word of the vocabulary may start."""
    return frozenset(
        w[:2] for w in vocabulary if w[:1] and "\u4e00" <= w[0] <= "\u9fff" and w[:2].strip()
    )


def opens_a_word(rest: str, openings: frozenset[str]) -> bool:
    """Whether ``rest``, the text right after a short name (破, 汉), starts where a new
    word of a question may start: no Chinese character, a function character (是, 有,
    的 …) or a phrase of the vocabulary (续航, 电池); 汉兰达 and 破屏险 do not."""
    head = rest[:1]
    if not head or not "\u4e00" <= head <= "\u9fff":
        return True
    return head in _FUNCTION or rest[:2] in openings or head in openings


def _after_digit(match: re.Match[str]) -> bool:
    """Whether the run follows a model number (a digit, perhaps one space between)."""
    before = match.string[: match.start(1)].rstrip()
    return before[-1:].isdigit()


_LATIN_WORD = re.compile(r"[a-z]+")
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")
#: The most syllables a catalog word has that a question may spell out (比亚迪汉: 4).
_MAX_SYLLABLES = 6
_CJK_ONLY = re.compile(r"[\u4e00-\u9fff]{2,6}")
_DIGIT_WORDS = "一二三四五六七八九"
#: Chinese numerals 1-99 (十四, 二十四, 六十): a pinyin question spells model numbers so.
_NUMERALS = (
    *_DIGIT_WORDS,
    "十",
    *(f"十{d}" for d in _DIGIT_WORDS),
    *(f"{t}十{d}" for t in _DIGIT_WORDS[1:] for d in ("", *_DIGIT_WORDS)),
)


def _pinyin_form(run: str) -> tuple[str, frozenset[int]] | None:
    """The toneless pinyin of ``run`` joined, and the syllable cuts inside it."""
    syllables = lazy_pinyin(run, style=Style.NORMAL)
    if (
        len(syllables) != len(run)
        or len(syllables) > _MAX_SYLLABLES
        or not all(s.isascii() and s.isalpha() for s in syllables)
    ):
        return None
    return "".join(syllables), syllable_cuts(syllables)


def syllable_cuts(syllables: Sequence[str]) -> frozenset[int]:
    """Where the syllables end in their joined spelling (xu|hang → {2, 6})."""
    return frozenset(sum(len(s) for s in syllables[: i + 1]) for i in range(len(syllables)))


def longest_pinyin_form(
    text: str,
    words: Sequence[re.Match[str]],
    index: int,
    forms: Mapping[str, tuple[str, frozenset[int]]],
    prefixes: frozenset[str],
    *,
    lower: bool = False,
) -> tuple[int, str] | None:
    """The last word index and the Chinese word of the longest pinyin form (spelling →
    the word and its syllable cuts) that starts at ``words[index]``: the words one space
    apart, cut only where the form's syllables are (``prefixes``: every beginning of a
    form, where a longer one may still be read). ``lower``: the words' letters folded."""
    joined = ""
    best: tuple[int, str] | None = None
    offsets: list[int] = []
    for last in range(index, min(len(words), index + _MAX_SYLLABLES)):
        if last > index and text[words[last - 1].end() : words[last].start()] != " ":
            break  # one space between the syllables of one word, nothing else
        word = words[last].group()
        joined += word.lower() if lower else word
        offsets.append(len(joined))
        form = forms.get(joined)
        if form is not None and all(o in form[1] for o in offsets):
            best = (last, form[0])
        if joined not in prefixes:
            break  # no longer form begins with these words
    return best


class PinyinNames:
    """Catalog Chinese names spelt in pinyin ("biyadi han", "xiao mi 14") → the Chinese
    name, so the product grammar reads them as the name itself.

    Only whole Latin words, and only when their letters are the full syllable sequence
    of one catalog word (toneless pypinyin readings), cut only between syllables: "xiao
    mi" and "xiaomi" are 小米, "xia omi" is nothing, and "bi" alone (one syllable of
    比亚迪) is nothing. A form that is an English word is left as written; one that is a
    Latin name word too (huawei) is that word, joined."""

    __slots__ = ("_forms", "_latin", "_phrases", "_prefixes")

    def __init__(
        self,
        names: Iterable[str],
        brand_words: Iterable[str] = (),
        english: Iterable[str] = (),
        phrases: Iterable[str] = (),
    ) -> None:
        """``names``: the catalog's names (their Chinese runs are spelt out, and the brand
        words inside a run: 比亚迪 of 比亚迪汉); the Latin words of the names and of
        ``brand_words``: a pinyin form that is one (xiaomi) is written joined ("xiao mi"
        → xiaomi); ``english``: words never to replace."""
        kept = frozenset(w.lower() for w in english)
        names = tuple(names)
        brand_words = tuple(brand_words)
        latin = frozenset(
            w for text in (*names, *brand_words) for w in _LATIN_WORD.findall(text.lower())
        )
        runs = {r for n in names for r in _CJK_WORD.findall(n)}
        runs |= {b for b in brand_words if not b.isascii() and any(b in r for r in runs)}
        found: dict[str, set[tuple[str, frozenset[int]]]] = {}
        for run in sorted(runs):
            form = _pinyin_form(run)
            if form is None:
                continue
            joined, cuts = form
            if joined not in kept:
                found.setdefault(joined, set()).add((joined if joined in latin else run, cuts))
        # A spelling two catalog words share names neither.
        self._forms = {k: next(iter(v)) for k, v in found.items() if len(v) == 1}
        self._latin = latin
        # The vocabulary's Chinese phrases (主摄, 像素, 多少) and the numerals up to 99
        # (shisi = 十四), read only in a question written wholly in pinyin.
        phrases = tuple(phrases)
        # a pinyin word the vocabulary writes itself (fapiao) is read as written
        written = {w for p in phrases for w in _LATIN_WORD.findall(p.lower())}
        spelt: dict[str, set[tuple[str, frozenset[int]]]] = {}
        for run in {*(p for p in phrases if _CJK_ONLY.fullmatch(p)), *_NUMERALS}:
            form = _pinyin_form(run)
            if form is not None and not (form[0] in kept or form[0] in latin or form[0] in written):
                spelt.setdefault(form[0], set()).add((run, form[1]))
        self._phrases = {
            k: next(iter(v)) for k, v in spelt.items() if len(v) == 1 and k not in self._forms
        }
        # Every beginning of a form: words joined into none of them join into no form.
        self._prefixes = frozenset(
            form[:end] for form in (*self._forms, *self._phrases) for end in range(1, len(form))
        )

    def replace(self, text: str) -> str:
        if not self._forms:
            return text
        if self._phrases and text.isascii():
            whole = self._replace_all_pinyin(text)
            if whole is not None:
                return whole
        words = list(_LATIN_WORD.finditer(text))
        out: list[str] = []
        position = 0
        index = 0
        while index < len(words):
            found = self._match_at(text, words, index)
            if found is None:
                index += 1
                continue
            end_index, chinese = found
            start, end = words[index].start(), words[end_index].end()
            out.append(text[position:start])
            out.append(chinese)
            position = end
            index = end_index + 1
        if not out:
            return text
        out.append(text[position:])
        return "".join(out)

    def _replace_all_pinyin(self, text: str) -> str | None:
        """``text`` with every Latin word read as pinyin (names, phrases, numerals), or
        None when some word is neither pinyin of the vocabulary nor a name word: a
        question in English or mixed stays as written ("she" is no 摄 there)."""
        words = list(_LATIN_WORD.finditer(text))
        out: list[str] = []
        position = 0
        index = 0
        read = False
        chinese_before = False
        while index < len(words):
            found = self._match_at(text, words, index, self._forms) or self._match_at(
                text, words, index, self._phrases
            )
            start = words[index].start()
            if found is None:
                if words[index].group() not in self._latin:
                    return None
                out.append(text[position : words[index].end()])
                position, index, chinese_before = words[index].end(), index + 1, False
                continue
            end_index, chinese = found
            gap = text[position:start]
            # Chinese words are written without spaces between them (主摄多少像素).
            out.append("" if chinese_before and gap == " " else gap)
            out.append(chinese)
            chinese_before = not chinese.isascii()
            position, index, read = words[end_index].end(), end_index + 1, True
        if not read:
            return None
        out.append(text[position:])
        return "".join(out)

    def _match_at(
        self,
        text: str,
        words: Sequence[re.Match[str]],
        index: int,
        forms: Mapping[str, tuple[str, frozenset[int]]] | None = None,
    ) -> tuple[int, str] | None:
        """The last word index and the Chinese word of the longest pinyin form that
        starts at ``words[index]``."""
        return longest_pinyin_form(
            text, words, index, self._forms if forms is None else forms, self._prefixes
        )
