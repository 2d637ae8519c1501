"""Constraints: which variant of an attribute the question is about.

A constraint enters the fingerprint only when the question states it and the product's
answer varies by that key (``{"by": "storage"}`` in the catalog, or a store policy with
per-variant texts such as opened/unopened returns). "256G" in a screen-size question is
dropped; "256G" in a price question is kept. When the answer varies by a key and the
question hints at a variant we cannot read ("大号", "gaming", "顶配"), or names a value the
product is not sold in, the extractor returns no fingerprint rather than serving the
unconstrained answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.core.semantic.lexicon import SlotLexicon, parse_label
from services.core.semantic.phrases import Hit, PhraseSet, outermost


@dataclass(frozen=True, slots=True)
class ConstraintReading:
    """Constraint values found in a question, before the attribute is known."""

    hits: tuple[Hit, ...]
    values: Mapping[str, frozenset[str]]
    #: Values read but negated ("不加盒子"): no value of the question, but a negation
    #: before them is theirs, not that of the value after them.
    negated: tuple[Hit, ...] = ()

    def conflicting_keys(self) -> list[str]:
        return sorted(k for k, vs in self.values.items() if len(vs) > 1)

    def spans(self) -> list[tuple[int, int]]:
        return [(h.start, h.end) for h in self.hits]


@dataclass(frozen=True, slots=True)
class ConstraintChoice:
    constraints: tuple[tuple[str, str], ...]
    problem: str | None = None
    #: Keys the answer varies by that the question left open (an unconstrained class).
    open_keys: tuple[str, ...] = ()


#: How far before a constraint value a negation may stand ("charge without a cable").
_NEGATION_WINDOW = 12
#: Words right after a value that reject it ("512不够", "256 is not enough"): the value
#: the asker rules out, negated as a negation before it would. A modal or degree adverb
#: may stand between (256怕不够用, 256肯定不够, 128g估计太小): it hedges the rejection.
_REJECTED_AFTER = re.compile(
    r"\s*(的)?(?:怕|肯定|可能|应该|估计|恐怕|绝对|根本|确实|实在|真的|感觉|也|还是|有点|有些)?"
    r"(不够用|不够|不行|太小|太少|太贵|不考虑|"
    r"(is |are |was |'s )?(not enough|isn't enough|too small|too little|won't do|doesn't cut it))"
)
#: Focus and aspect adverbs a negation reaches over ("haven't even / yet / ever opened"):
#: a run of them right before a value.
_FOCUS_BEFORE = re.compile(
    r"(?:\b(?:even|yet|ever|really|actually|fully|completely|properly|once)\s+)+$"
)
_CLAUSE_MARKS = (",", "，", ".", "。", "?", "？", "!", "！", ";", "；")
#: A self-correction standing on its own ("128g 不对 256g", "512gb, i mean 256gb"): the
#: values before it are taken back, the one after it is meant.
_CORRECTION = re.compile(
    r"(?:^|(?<=[\s,，.。…!！;；、]))(?:不对不对|不对|说错了|打错了|写错了|口误)(?=$|[\s,，.。…!！;；、]|是)"
    r"|\b(?:i mean|i meant|no wait|scratch that|correction)\b"
)


def _before_last_correction(hits: Sequence[Hit], text: str) -> list[Hit]:
    """The values before the last self-correction of ``text``."""
    corrections = list(_CORRECTION.finditer(text))
    if not corrections:
        return []
    return [h for h in hits if h.end <= corrections[-1].start()]


class ConstraintResolver:
    __slots__ = (
        "_complements",
        "_foreign",
        "_heads",
        "_hints",
        "_known_fragments",
        "_negations",
        "_phrases",
        "_specs",
        "_store_variants",
    )

    def __init__(self, lexicon: SlotLexicon) -> None:
        self._negations = PhraseSet((n, "not") for n in lexicon.negations)
        self._phrases = PhraseSet(lexicon.constraint_phrases, lexicon.constraint_patterns)
        by_key: dict[str, list[tuple[str, str]]] = {}
        for pattern, key in lexicon.constraint_hints:
            by_key.setdefault(key, []).append((pattern, key))
        self._hints = {key: PhraseSet((), patterns) for key, patterns in by_key.items()}
        self._specs = lexicon.attributes
        self._complements = _complements(
            (key, values)
            for spec in lexicon.attributes.values()
            for key, values in spec.constraint_values.items()
        )
        self._store_variants = lexicon.store_variants
        self._heads = _value_heads(lexicon.constraint_phrases)
        self._known_fragments = _fragments(lexicon.all_phrases())
        # (key, phrase) → the categories whose values use the phrase: 快充 names a car's
        # DC charging, so for a phone it is no variant of its own (just "fast charging").
        owners: dict[tuple[str, str], set[str] | None] = {}
        for phrase, raw_label in lexicon.constraint_phrases:
            label = parse_label(raw_label)
            if label.kind != "constraint":
                continue
            slot = (label.name, phrase)
            if not label.categories:
                owners[slot] = None
            elif slot not in owners or owners[slot] is not None:
                owners.setdefault(slot, set())
                found = owners[slot]
                if found is not None:
                    found.update(label.categories)
        self._foreign = {slot: frozenset(c) for slot, c in owners.items() if c is not None}

    def read(
        self, text: str, boundaries: frozenset[int], category: str | None
    ) -> ConstraintReading:
        hits = [
            h
            for h in self._phrases.find(text, boundaries)
            if parse_label(h.label).applies_to(category)
        ]
        # The longest reading wins: "长续航全驱版" over the "长续航" inside it.
        hits = outermost(hits)
        # "128g 不对 256g": the asker corrects themself; what came before is taken back.
        retracted = _before_last_correction(hits, text)
        if retracted:
            retracted_ids = {id(h) for h in retracted}
            hits = [h for h in hits if id(h) not in retracted_ids]
        kept = self._without_negated_rivals(hits, text, boundaries)
        values: dict[str, set[str]] = {}
        for hit in kept:
            label = parse_label(hit.label)
            values.setdefault(label.name, set()).add(label.value)
        kept_ids = {id(h) for h in kept}
        negated = (*retracted, *(h for h in hits if id(h) not in kept_ids))
        return ConstraintReading(tuple(kept), {k: frozenset(v) for k, v in values.items()}, negated)

    def _without_negated_rivals(
        self, hits: list[Hit], text: str, boundaries: frozenset[int]
    ) -> list[Hit]:
        """Of two values of one key, a negated one is not a second value: "听音乐续航几小时
        不算盒子" asks the music playback time, not counting the case. Only when exactly one
        value of the key stays un-negated; otherwise the reading is left as it is."""
        by_key: dict[str, list[Hit]] = {}
        for hit in hits:
            by_key.setdefault(parse_label(hit.label).name, []).append(hit)
        dropped: set[int] = set()
        ends = _HitEnds(hits)
        for key_hits in by_key.values():
            if len({parse_label(h.label).value for h in key_hits}) < 2:
                continue
            negated = [h for h in key_hits if self._hit_negated(h, text, boundaries, ends)]
            negated_ids = {id(h) for h in negated}
            kept = {parse_label(h.label).value for h in key_hits if id(h) not in negated_ids}
            if negated and len(kept) == 1:
                dropped.update(id(h) for h in negated)
        return [h for h in hits if id(h) not in dropped] if dropped else hits

    def _hit_negated(
        self, hit: Hit, text: str, boundaries: frozenset[int], others: _HitEnds | None = None
    ) -> bool:
        """Whether a negation stands shortly before ``hit`` in its clause. A negation
        governs the first value after it: in "不加盒子听音乐" the 不 negates 加盒子, not the
        听音乐 after it, so the window starts after any other value (of ``others``) that
        lies between."""
        # "haven't even opened": focus adverbs between a negation and its value are in
        # its scope, so the window is measured from before them.
        focus = _FOCUS_BEFORE.search(text, max(0, hit.start - 40), hit.start)
        window_start = max(0, (focus.start() if focus else hit.start) - _NEGATION_WINDOW)
        for correction in _CORRECTION.finditer(text, max(0, window_start - 8), hit.start):
            # 不对 of "不对 256g" takes back what came before, it does not negate the value.
            window_start = max(window_start, correction.end())
        if others is not None:
            latest = others.latest_in(window_start, hit.start, hit)
            if latest is not None:
                window_start = latest
        if _REJECTED_AFTER.match(text, hit.end):
            return True
        before = text[window_start : hit.start]
        clause = max(before.rfind(p) for p in _CLAUSE_MARKS)
        before = before[clause + 1 :]
        offset = hit.start - len(before)
        # The window is short: look its positions up rather than scan every boundary.
        shifted = frozenset(b - offset for b in range(offset, hit.start + 1) if b in boundaries)
        return bool(self._negations.find(before, shifted | {0, len(before)}))

    def choose(
        self,
        reading: ConstraintReading,
        attribute: str,
        product_specs: Mapping[str, Any] | None,
        text: str,
        boundaries: frozenset[int],
        category: str | None = None,
    ) -> ConstraintChoice:
        varying = self.varying(attribute, product_specs)
        chosen: list[tuple[str, str]] = []
        open_keys: list[str] = []
        # "各版本价格", "all storage options": every variant is asked, so the variant word
        # the quantifier governs hints at none; hints elsewhere still count.
        # 不同版本价格一样吗 compares the variants: nothing is blanked then.
        hint_text = text
        for start, end in quantified_variant_spans(text):
            hint_text = f"{hint_text[:start]}{' ' * (end - start)}{hint_text[end:]}"
        for key, offered in sorted(varying.items()):
            stated = reading.values.get(key)
            if stated:
                (value,) = stated  # conflicting values were a bypass already
                if self._negated(key, reading, text, boundaries):
                    # "haven't opened it": a value whose complement the data names by a
                    # negating prefix (opened / unopened) means that complement; any other
                    # negated value ("without a cable") leaves the one meant unknown.
                    complement = self._complements.get((key, value))
                    if complement is None or complement not in offered:
                        return ConstraintChoice((), f"{key} is negated")
                    value = complement
                if value not in offered:
                    return ConstraintChoice((), f"{key}={value} is not offered for this product")
                chosen.append((key, value))
            elif self._hinted(key, hint_text, boundaries, category):
                return ConstraintChoice((), f"hints at a {key} we cannot read")
            else:
                open_keys.append(key)
        for key in sorted(self._edition_keys(product_specs) - varying.keys()):
            # "Model Y焕新版什么时候上市": the attribute is one figure for the product as
            # listed, but a variant word of this product we cannot read names an edition
            # the catalog does not describe, whose figure may differ.
            if not reading.values.get(key) and self._unread_value_word(
                key, hint_text, boundaries, only_heads=_EDITION_HEADS
            ):
                return ConstraintChoice((), f"names a {key} the catalog does not list")
        if product_specs is not None and self._edition_after_name(
            hint_text, reading, self._edition_keys(product_specs)
        ):
            # "Mate 60 Pro 卫星版": an edition named on the product's name that no value,
            # note or vocabulary word is (标准版 and 焕新版 are): its figures may differ.
            return ConstraintChoice((), "names an edition the catalog does not list")
        return ConstraintChoice(tuple(chosen), open_keys=tuple(open_keys))

    def _edition_after_name(
        self, text: str, reading: ConstraintReading, product_keys: set[str]
    ) -> bool:
        """Whether a word on an edition head (版, 款; not 版本, "version") stands right
        after a product's name and is no piece of the vocabulary, nor a value read of a
        key the product varies by (无线充版 of earbuds that vary by none names an edition)."""
        for match in _EDITION_AFTER_NAME.finditer(text):
            word = match.group(1) + match.group(2)
            if any(ch in _DETERMINER_CHARACTERS or ch in _FUNCTION_CHARACTERS for ch in word[:-1]):
                continue  # 哪一版, 这款, 的款: which or this edition, not the name of one
            if word in self._known_fragments or any(
                h.start < match.end()
                and match.start(1) < h.end
                and parse_label(h.label).name in product_keys
                for h in (*reading.hits, *reading.negated)
            ):
                continue
            return True
        return False

    @staticmethod
    def _edition_keys(product_specs: Mapping[str, Any] | None) -> set[str]:
        """The keys any of the product's specs vary by (its trims, storage sizes)."""
        if product_specs is None:
            return set()
        return {
            str(spec["by"])
            for spec in product_specs.values()
            if isinstance(spec, Mapping) and "by" in spec
        }

    def varying(
        self, attribute: str, product_specs: Mapping[str, Any] | None
    ) -> dict[str, frozenset[str]]:
        """Constraint key → the values the answer differs by, for this product."""
        spec = self._specs[attribute]
        varying: dict[str, frozenset[str]] = {}
        product_spec = product_specs.get(attribute) if product_specs is not None else None
        if isinstance(product_spec, Mapping) and "by" in product_spec:
            varying[str(product_spec["by"])] = frozenset(product_spec.get("values", {}))
        if spec.kind == "policy":
            # Store policies with per-variant texts (opened / unopened returns) vary too.
            store = self._store_variants.get(attribute, frozenset())
            for key, values in spec.constraint_values.items():
                if key not in varying and values & store:
                    varying[key] = values & store
        return varying

    def _negated(
        self, key: str, reading: ConstraintReading, text: str, boundaries: frozenset[int]
    ) -> bool:
        ends = _HitEnds((*reading.hits, *reading.negated))
        for hit in reading.hits:
            if parse_label(hit.label).name != key:
                continue
            if self._hit_negated(hit, text, boundaries, ends):
                return True
        return False

    def _hinted(
        self, key: str, text: str, boundaries: frozenset[int], category: str | None = None
    ) -> bool:
        hints = self._hints.get(key)
        if hints is not None and any(
            not self._foreign_phrase(key, text[h.start : h.end], category)
            for h in hints.find(text, boundaries)
        ):
            return True
        return self._unread_value_word(key, text, boundaries)

    def _foreign_phrase(self, key: str, phrase: str, category: str | None) -> bool:
        """Whether ``phrase`` names only values of other categories than ``category``."""
        owners = self._foreign.get((key, phrase))
        return category is not None and owners is not None and category not in owners

    def ends_in_variant_word(
        self,
        text: str,
        start: int,
        end: int,
        boundaries: frozenset[int],
        topic_keys: Iterable[str] = (),
    ) -> bool:
        """Whether ``text[start:end]`` is the modifier of a word built like a variant
        name: followed by the head its key's values share (版 of 标准版 / 长续航版), the
        two together no piece of the vocabulary, and the head ends the word. In "焕新版"
        the 焕新 (heard as 换新, an exchange word) names an edition, not what is asked.
        Heads of ``topic_keys`` (keys that name what is asked: the 保 of 电池包质保) make
        no variant name: "保价保几天" still asks about price protection."""
        topic_keys = frozenset(topic_keys)
        if end >= len(text) or not _is_cjk(text[end]) or not _is_cjk(text[end - 1]):
            return False
        head = text[end]
        if not any(head in self._heads[k][0] for k in self._heads if k not in topic_keys):
            return False
        if end + 1 < len(text) and end + 1 not in boundaries:
            return False  # the head starts a word of its own (版本 of 存储版本)
        return text[start : end + 1] not in self._known_fragments

    def _unread_value_word(
        self,
        key: str,
        text: str,
        boundaries: frozenset[int],
        only_heads: frozenset[str] | None = None,
    ) -> bool:
        """A word built like this key's values but none of them: Chinese compounds end in
        their head (闪充 is a kind of 充 like 超充 and 慢充), English ones in their last word
        ("turbo charging" like "home charging"). Such a word names a variant we cannot read.
        ``only_heads``: look only for words on these heads."""
        heads = self._heads.get(key)
        if heads is None:
            return False
        zh_heads, en_heads = heads
        if only_heads is not None:
            zh_heads, en_heads = zh_heads & only_heads, en_heads & only_heads
        known = self._known_fragments
        for index in range(1, len(text)):
            ch, before = text[index], text[index - 1]
            if ch not in zh_heads or not _is_cjk(before) or before in _FUNCTION_CHARACTERS:
                continue
            if only_heads is not None and before in _DETERMINER_CHARACTERS:
                continue  # 哪一版, 啥版本: which edition, not the name of one
            # The character before must be this word's, or a lone one (jieba splits words
            # it does not know into characters), never the end of another word (手机|充).
            if index in boundaries and (index - 1) not in boundaries:
                continue
            if text[index - 1 : index + 1] in known:
                continue
            return True
        for match in _MODIFIED_WORD.finditer(text):
            modifier, head = match.group(1), match.group(2)
            if (
                head in en_heads
                and modifier not in _CLOSED_CLASS
                and f"{modifier} {head}" not in known
            ):
                return True
        return False


class _HitEnds:
    """The ends of a question's value hits, sorted: the latest end in a window is found
    in log time, not by a scan of every hit (a long question holds many)."""

    def __init__(self, hits: Iterable[Hit]) -> None:
        pairs = sorted((h.end, id(h)) for h in hits)
        self._ends = [end for end, _ in pairs]
        self._ids = [ident for _, ident in pairs]

    def latest_in(self, after: int, upto: int, excluding: Hit) -> int | None:
        """The latest end in ``(after, upto]`` of a hit other than ``excluding``."""
        index = bisect_right(self._ends, upto) - 1
        while index >= 0 and self._ends[index] > after:
            if self._ids[index] != id(excluding):
                return self._ends[index]
            index -= 1
        return None


_MAX_WORD = 6
#: Words asking whether variants are alike: they compare the variants a quantifier names.
_SAMENESS = re.compile(r"一样|相同|同价|差别|区别|差异|差多少|\bsame\b|\bdiffer")
#: A quantifier over a product's variants ("各版本", "不同配置", "每个容量", "all the trims",
#: "every storage option"): the question asks each of them, i.e. the unconstrained class.
#: A camera's lenses are its variants too (各个镜头, 那几个镜头都…, "all the lenses"): 几个
#: before them asks how many there are, i.e. all of them.
_ALL_VARIANTS = re.compile(
    r"(?:各|每|所有|全部|不同|各个|每个|每一|每种|每款|各种|各款|(?<![十好])(?:那|这)?几个)"
    r"(?:个|种|款|档)?(?:的)?"
    r"(?:版本|版|配置|型号|款式|款|容量|存储|内存|规格|车型|尺寸|档|镜头|摄像头)"
    r"|\b(?:all|every|each|different|various)(?: of)?(?: the)?(?: (?:storage|memory|capacity|trim|"
    r"battery|size|range|camera))? (?:versions?|variants?|options?|configs?|configurations?|trims?|"
    r"models?|editions?|sizes?|capacities|tiers?|lens|lenses|cameras)\b"
)


def quantified_variant_spans(text: str) -> list[tuple[int, int]]:
    """Spans of quantifiers over a product's variants ("every storage option", "各存储"),
    unless the question asks whether the variants are alike (一样, same)."""
    if _SAMENESS.search(text):
        return []
    return [m.span() for m in _ALL_VARIANTS.finditer(text)]


#: Heads that make a word the name of an edition (焕新版, 新款, "refresh edition").
_EDITION_HEADS = frozenset(("版", "款", "edition", "version"))
#: Interrogatives, demonstratives and numerals: with a head they ask or point, not name.
#: A Chinese word on an edition head right after a product's name (§ 卫星版, §无线充版).
_EDITION_AFTER_NAME = re.compile(r"§\s*([\u4e00-\u9fff]{1,4}?)(版|款)(?!本)")
_DETERMINER_CHARACTERS = frozenset("哪啥么一这那每各同几本该此")
#: Chinese function characters: no compound is built on them.
_FUNCTION_CHARACTERS = frozenset("的了吗呢吧啊呀个是有在和与也都就还要会能可吗么很太多少几")
_MODIFIED_WORD = re.compile(r"(?<![a-z§¤])([a-z]{2,}) (?=([a-z]{2,})(?![a-z]))")
#: English closed-class words: they modify no noun into a variant name.
_CLOSED_CLASS = frozenset(
    (
        *("the", "a", "an", "its", "their", "his", "her", "your", "my", "our", "this", "that"),
        *("these", "those", "of", "for", "on", "with", "and", "or", "to", "in", "is", "are"),
        *("does", "do", "what", "how", "much", "many", "which", "whats", "it", "at", "by"),
        *("from", "about"),
    )
)


#: The head nouns a variant's name takes after its value ("base version", "标准版本"):
#: part of the variant's name, no word of what is asked.
_VARIANT_NOUN = re.compile(r"\s*(versions?|editions?|variants?|models?|trims?|版本|版|款)(?![a-z])")


def variant_name_end(text: str, end: int) -> int:
    """Where the variant name whose value ends at ``end`` ends: after a head noun that
    follows the value ("base version", "long range model"), else at ``end``."""
    found = _VARIANT_NOUN.match(text, end)
    return found.end() if found is not None else end


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _value_heads(
    phrases: Sequence[tuple[str, str]],
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """key → (Chinese head characters, English head words) that end the forms of at least
    two different values of the key (a head one value alone uses marks that value only)."""
    zh: dict[str, dict[str, set[str]]] = {}
    en: dict[str, dict[str, set[str]]] = {}
    for phrase, raw_label in phrases:
        label = parse_label(raw_label)
        if label.kind != "constraint" or not phrase:
            continue
        if _is_cjk(phrase[-1]) and len(phrase) >= 2:
            zh.setdefault(label.name, {}).setdefault(phrase[-1], set()).add(label.value)
        words = phrase.split()
        if len(words) >= 2 and words[-1].isascii() and words[-1].isalpha():
            en.setdefault(label.name, {}).setdefault(words[-1], set()).add(label.value)
    out: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for key in {*zh, *en}:
        zh_heads = frozenset(
            h for h, vs in zh.get(key, {}).items() if len(vs) >= 2 and h not in _FUNCTION_CHARACTERS
        )
        en_heads = frozenset(h for h, vs in en.get(key, {}).items() if len(vs) >= 2)
        if zh_heads or en_heads:
            out[key] = (zh_heads, en_heads)
    return out


def _fragments(phrases: Sequence[str]) -> frozenset[str]:
    """Every piece of a vocabulary phrase (充电 of 充电功率, "fast charging" of "dc fast
    charging"): a word inside known vocabulary is no unread value."""
    out: set[str] = set()
    for phrase in phrases:
        if phrase.isascii():
            words = phrase.split()
            out.update(" ".join(words[i : i + 2]) for i in range(len(words) - 1))
            continue
        for i in range(len(phrase)):
            for j in range(i + 2, min(len(phrase), i + _MAX_WORD) + 1):
                out.add(phrase[i:j])
    return frozenset(out)


#: Prefixes that negate a value's name ("unopened" is "not opened").
_NEGATING_PREFIXES = ("un", "non_", "non", "not_", "no_")


def _complements(
    keyed_values: Iterable[tuple[str, Iterable[str]]],
) -> dict[tuple[str, str], str]:
    """(key, value) → the value that is its negation by name: from the item_state values
    "opened" and "unopened", ("item_state", "opened") → "unopened"."""
    out: dict[tuple[str, str], str] = {}
    for key, values in keyed_values:
        names = set(values)
        for value in names:
            for prefix in _NEGATING_PREFIXES:
                base = value[len(prefix) :]
                if value.startswith(prefix) and base in names:
                    out[(key, base)] = value
                    break
    return out
