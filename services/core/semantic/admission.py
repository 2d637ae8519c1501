"""The admission policy: which questions must never be cached, as data.

Each bypass intent (personal, realtime, predict, compare, recommend, unknown_product) has
literal phrases and regex patterns, evaluated on the normalised question with catalog
products masked as ``§`` and unknown products or bare brands as ``¤`` (so 比 inside 比亚迪
never reads as "compare"). When several intents fire, the policy's precedence decides,
as in ``policy.json`` (a spec question carrying a phone number is personal). The
extractor adds structural evidence (two products named, two storage sizes, an unknown
model) through the same precedence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from services.core.errors import CachecohError
from services.core.semantic.fingerprint import BYPASS_INTENTS, CACHEABLE_INTENTS
from services.core.semantic.lexicon import COLLOQUIAL, colloquial_pattern, parse_label
from services.core.semantic.phrases import Hit, PhraseSet

PRODUCT_MASK = "§"
UNKNOWN_MASK = "¤"


class PolicyError(CachecohError, ValueError):
    """A policy document that cannot be used; ``json_path`` points at the bad part."""

    def __init__(self, json_path: str, message: str) -> None:
        super().__init__(f"{json_path}: {message}")
        self.json_path = json_path
        self.message = message


@dataclass(frozen=True, slots=True)
class IntentRule:
    intent: str
    description: str
    phrases: tuple[str, ...]
    patterns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AdmissionPolicy:
    """Parsed ``admission_policy.json``."""

    version: int
    precedence: tuple[str, ...]
    rules: tuple[IntentRule, ...]
    variant_suffixes: tuple[str, ...]
    adjective_suffixes: tuple[str, ...] = ()
    accessory_words: tuple[str, ...] = ()

    @property
    def other_brands(self) -> tuple[str, ...]:
        """Brands and series we do not sell: the unknown_product rule's phrases."""
        for rule in self.rules:
            if rule.intent == "unknown_product":
                return rule.phrases
        return ()

    def with_possessed_policies(self, synonym_groups: Sequence[Sequence[str]]) -> AdmissionPolicy:
        """This policy where the asker's possessive before a word of a store policy's
        synonym group (我的发票, my invoice, 我的保修) is personal for every word of the
        group in the possessive's script (我的专票, my fapiao): a store rule is everyone's,
        but "my" of it is the asker's own case."""
        personal = next((r for r in self.rules if r.intent == "personal"), None)
        if personal is None:
            return self
        listed = set(personal.phrases)
        added: list[str] = []
        for group in synonym_groups:
            words = [w.lower() for w in group]
            for possessive, in_script in _POSSESSIVES:
                for word in words:
                    phrase = possessive + word
                    if in_script.fullmatch(word) and phrase not in listed:
                        listed.add(phrase)
                        added.append(phrase)
        if not added:
            return self
        rules = tuple(
            replace(r, phrases=(*r.phrases, *added)) if r is personal else r for r in self.rules
        )
        return replace(self, rules=rules)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> AdmissionPolicy:
        """Parse and check a policy document (its JSON Schema is checked by the loader)."""
        precedence = tuple(str(i) for i in raw.get("precedence", ()))
        intents = raw.get("intents", {})
        missing = sorted(BYPASS_INTENTS - set(precedence))
        if missing:
            raise PolicyError("$.precedence", f"bypass intents missing: {', '.join(missing)}")
        unknown = sorted(set(precedence) - BYPASS_INTENTS - CACHEABLE_INTENTS)
        if unknown:
            raise PolicyError("$.precedence", f"unknown intents: {', '.join(unknown)}")
        first_cacheable = min(
            (i for i, name in enumerate(precedence) if name in CACHEABLE_INTENTS),
            default=len(precedence),
        )
        if any(name in BYPASS_INTENTS for name in precedence[first_cacheable:]):
            raise PolicyError("$.precedence", "every bypass intent must precede the cacheable ones")
        rules: list[IntentRule] = []
        for name in precedence:
            if name not in BYPASS_INTENTS:
                continue
            body = intents.get(name)
            if body is None:
                raise PolicyError(f"$.intents.{name}", "missing")
            patterns = tuple(
                spaced_mask_pattern(colloquial_pattern(str(p))) for p in body.get("patterns", ())
            )
            for index, pattern in enumerate(patterns):
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise PolicyError(
                        f"$.intents.{name}.patterns[{index}]", f"invalid regex: {exc}"
                    ) from exc
            rules.append(
                IntentRule(
                    intent=name,
                    description=str(body.get("description", "")),
                    phrases=tuple(str(p).lower() for p in body.get("phrases", ())),
                    patterns=patterns,
                )
            )
        unknown_body = intents.get("unknown_product", {})
        return cls(
            version=int(raw.get("version", 1)),
            precedence=precedence,
            rules=tuple(rules),
            variant_suffixes=tuple(
                str(s).lower() for s in unknown_body.get("variant_suffixes", ())
            ),
            adjective_suffixes=tuple(
                str(s).lower() for s in unknown_body.get("adjective_suffixes", ())
            ),
            accessory_words=tuple(str(s).lower() for s in unknown_body.get("accessory_words", ())),
        )


#: Possessives of the asker and the script of the words they own in a personal phrase.
_POSSESSIVES = (
    ("我的", re.compile(r"[\u4e00-\u9fff]+")),
    ("my ", re.compile(r"[a-z][a-z -]*")),
)

_INNER_MASK = re.compile(r"(?<=.)\[§¤\]")


def spaced_mask_pattern(regex: str) -> str:
    """``regex`` also matching a product after a space: a space between Chinese words
    and a (Latin) product name is typography, so 我的 Mate 60 is 我的Mate 60. A pattern
    led by the mask is left as it is (its first character still leads the scan)."""
    return _INNER_MASK.sub("(?: )?[§¤]", regex)


class AdmissionGate:
    """Evaluates an :class:`AdmissionPolicy` on masked text."""

    __slots__ = ("_order", "_sets")

    def __init__(self, policy: AdmissionPolicy) -> None:
        self._order = tuple(i for i in policy.precedence if i in BYPASS_INTENTS)
        self._sets = {
            rule.intent: PhraseSet(
                (
                    (v, rule.intent)
                    for p in rule.phrases
                    for v in question_particle_variants(p)
                    for v in (v, *colloquial_forms(v))
                ),
                ((p, rule.intent) for p in rule.patterns),
                scan_led_patterns_alone=True,
                # A cue word is never a unit: "5ATM" is water resistance, not "at the moment".
                words_after_numbers=False,
            )
            for rule in policy.rules
        }

    def first_bypass(
        self,
        masked: str,
        boundaries: frozenset[int],
        structural: Mapping[str, str],
        skip: frozenset[str] = frozenset(),
    ) -> tuple[str, str] | None:
        """The highest-precedence bypass intent that applies, with the evidence
        (``skip``: intents known not to apply)."""
        for intent in self._order:
            if intent in skip:
                continue
            if intent in structural:
                return intent, structural[intent]
            phrase_set = self._sets.get(intent)
            if phrase_set is None:
                continue
            hits = phrase_set.find(masked, boundaries)
            if hits:
                return intent, _describe(hits)
        return None

    def hits(self, intent: str, masked: str, boundaries: frozenset[int]) -> list[Hit]:
        """Where ``intent``'s phrases and patterns occur in ``masked``."""
        phrase_set = self._sets.get(intent)
        return phrase_set.find(masked, boundaries) if phrase_set is not None else []

    def matches(self, intent: str, text: str) -> bool:
        """Whether ``intent``'s phrases or patterns occur in ``text`` (no word boundaries)."""
        phrase_set = self._sets.get(intent)
        return phrase_set is not None and bool(phrase_set.find(text, frozenset()))


#: Deictic words of the present moment: alone they say "as things are now", which changes
#: the answer only for an attribute that changes over time (a price, stock), not for a
#: fixed spec ("现在出厂是什么系统", "how big is the screen now").
PRESENT_TIME_WORDS = frozenset(
    (
        "现在", "目前", "当前", "眼下", "当下", "此刻", "此时", "这会儿", "如今",
        "now", "right now", "currently", "current", "at the moment", "at present",
        "as of now", "nowadays", "rn", "atm", "at the minute", "these days",
    )
)  # fmt: skip


def only_present_time(hits: Sequence[Hit]) -> bool:
    """Whether every cue in ``hits`` is a present-time word and nothing else."""
    return bool(hits) and all(h.text.strip() in PRESENT_TIME_WORDS for h in hits)


#: A cue the asker sets aside ("the official price, not a deal", "不要活动价"): a
#: negation with an article or a contrast word right before it rules the cue out; a bare
#: "no discount?" still asks about one, so it is not read past.
_SET_ASIDE = re.compile(
    r"(?:\bnot (?:a|an|the|any)|\brather than(?: a| an| the)?|\binstead of(?: a| an| the)?"
    r"|而不是|(?<!是)不是|不要|不用|不需要)\s*$"
)


#: A gift the asker gives, not one the shop adds: "a gift for my dad", "her birthday
#: gift", "as a present"; the promotion sense ("any free gifts?") has no recipient.
_GIFT = re.compile(r"(?:gifts?|presents?)")
_RECIPIENT_AFTER = re.compile(r"\s+(?:(?:for|to)\b|(?:that\s+)?(?:i|i'm|i’m|we|we're|we’re)\s)")
_GIVER_BEFORE = re.compile(
    r"(?:(?:'s|’s)|\b(?:my|his|her|our|their|as an?)|\bfor an?(?=\s+(?!free\b|bonus\b)))"
    r"\s+(?:[a-z]+\s+)?$"
)


def _a_present(hit: Hit, text: str) -> bool:
    """Whether ``hit`` is the word gift used for what the asker gives someone."""
    if _GIFT.fullmatch(hit.text.strip()) is None:
        return False
    return bool(
        _RECIPIENT_AFTER.match(text, hit.end)
        or _GIVER_BEFORE.search(text, max(0, hit.start - 24), hit.start)
    )


#: A negated verb of asking, telling or needing right before a cue ("不是问优惠", "不用跟我
#: 说活动", "not asking about deals", "don't tell me about promotions"): the asker rules the
#: topic out. 不是说… ("wasn't it said …") asserts the cue, so only 问 follows 不是.
_NOT_ASKED = re.compile(
    r"(?:(?:并不是|不是|不)问(?:的)?(?:是)?(?:关于)?"
    r"|(?:不用|不要|不需要|不必|无需|别)(?:再)?(?:跟我|和我|给我|帮我|同我|跟我们)?"
    r"(?:说|讲|介绍|提|问|推荐|考虑)(?:什么|啥|那些|这些)?(?:的)?"
    r"|不(?:考虑|算|管|看|含|包括|包含))\s*$"
    r"|(?:\bnot|n't|\bnever)\s+(?:asking|interested in|looking for|counting|including|"
    r"talking about|asking for|after)(?: about)?(?: (?:a|an|the|any))?\s+$"
    r"|\b(?:don'?t|do not|dont|no need to|needn'?t)\s+(?:need|want|care about|tell me about|"
    r"mention|bother with|ask about|talk about|worry about)(?: about)?(?: (?:a|an|the|any))?\s+$"
)


def _not_asked(hit: Hit, text: str) -> bool:
    return bool(
        _SET_ASIDE.search(text, max(0, hit.start - 16), hit.start)
        or _NOT_ASKED.search(text, max(0, hit.start - 40), hit.start)
    )


#: Where the words a negated verb of asking rules out end: punctuation (not a decimal
#: point), a dash, or chat's space between two Chinese words.
_SCOPE_END = re.compile(
    r"[,，;；:：?？!！。~～]|(?<!\d)\.|\.(?!\d)|\s[—–-]+\s|[—–]"
    r"|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
)
#: A verb of asking negated, or a relation denied, opening what the asker rules out ("不是问
#: …", "不打听…", "not asking about …", "unrelated to …"): every word after it in its clause
#: is the topic the question is not about.
_ASKING_NEGATED = (
    r"(?:并)?(?:不是|不|没|没有)(?:在)?(?:问|打听|咨询|关心)"
    r"|(?<![a-z])(?:not|never)\s+(?:asking|talking|wondering|inquiring|enquiring|about)\b"
    r"|n't\s+(?:asking|talking|wondering)\b"
    r"|\b(?:unrelated to|not related to|nothing to do with|has nothing to do with)\b"
)
#: A wider set of openers, for a cue that is no case of the asker's: a telling, advice or
#: comparison declined (不用告诉我…, 别报…, 先别给建议, 不和其他车比, 没打算等…, "don't tell
#: me about …", "ignore promotions —", "not after a recommendation").
_DECLINED = re.compile(
    rf"(?:{_ASKING_NEGATED})"
    r"|(?:不用|不要|不需要|无需|不必|别|先别|先不用)(?:再)?(?:跟我|和我|给我|帮我|同我|跟我们|给我们)?"
    r"(?:说|讲|介绍|提|推荐|报|给|告诉|解释)"
    r"|不(?:考虑|管|在乎|纠结|比较|对比|预测|聊|谈)"
    r"|不(?:和|跟|与|同)(?=[^,，。.?？!！;；]{0,10}?(?:比|对比|比较))"
    r"|(?:没|不)打算"
    r"|(?<![a-z])(?:not|never)\s+(?:interested in|looking for|after|here for|concerned with)\b"
    r"|n't\s+(?:interested in|looking for|after|care about)\b"
    r"|\b(?:don'?t|do not|dont|no need to|needn'?t)\s+(?:care about|tell me|mention|bother|"
    r"ask about|talk about|worry about|give me)\b"
    r"|(?:^|(?<=[,.;:!?—]\s)|(?<=[,.;:!?—]))\s*(?:ignore|ignoring|forget about|skip|"
    r"setting aside|leaving aside|putting aside)\b"
)
_ASKED_NEGATED = re.compile(_ASKING_NEGATED)
#: Where the topic ruled out gives way to the one asked (不是问X，是问Y; "not X but Y").
_CONTRAST = re.compile(
    r"是问|而是|就问|只问|只想|想问|我问|问的是|(?<![a-z])(?:but|just|only|rather|instead)(?![a-z])"
)
#: A relation denied after its topic: 跟X无关, 和X没关系, 与X不相关.
_RELATION_BEFORE = re.compile(r"(?:跟|和|与|同)\s*")
_UNRELATED_AFTER = re.compile(
    r"[^,，。.?？!！;；]{0,8}?(?:无关|没关系|没有关系|不相关|没啥关系|没什么关系)"
    r"\s*(?:哈|啊|呀|的|哦|噢|喔)?\s*(?=$|[,，。.?？!！;；~～:：])"
)
#: "no X needed", "no X please": what the asker does not want.
_NO_BEFORE = re.compile(r"(?<![a-z])no\s+$")
_NOT_WANTED_AFTER = re.compile(r"[a-z]*\s+(?:needed|required|necessary|please|thanks|thx)\b")
#: A clause that asks, or stops at a perfective 了 (不问了: the asker gives up asking).
_ENDS_ASKING = re.compile(r"(?:[吗么嘛呢?？]|了)\s*$")


#: How far a clause is looked for either side of a cue. A clause longer than this is no
#: clause a rule can read (None): looking further would make every cue cost the whole
#: text, quadratic in its length.
_CLAUSE_REACH = 200


def _scope_clause(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The clause around ``text[start:end]``, or None when it runs past the reach."""
    low = max(0, start - _CLAUSE_REACH)
    begin = -1
    for found in _SCOPE_END.finditer(text, low, start):
        begin = found.end()
    if begin < 0:
        if low > 0:
            return None
        begin = 0
    high = min(len(text), end + _CLAUSE_REACH)
    after = _SCOPE_END.search(text, end, high)
    if after is None and high < len(text):
        return None
    return begin, after.start() if after is not None else len(text)


def ruled_out(text: str, start: int, end: int, *, declined: bool = True) -> bool:
    """Whether ``text[start:end]`` is a topic the question says it is not about: after a
    negated verb of asking that opens its clause (不是问我的订单, "not asking about my
    order"), before a denied relation (跟我的账户无关), in "no … needed", or, when
    ``declined``, after a telling, advice or comparison declined (不用告诉我, 先别给建议, 不和
    其他车比). The clause must not ask itself (no question mark or particle at its end) and
    no contrast word (是问, "but") may stand between the opener and the words."""
    clause = _scope_clause(text, start, end)
    if clause is None:
        return False
    begin, clause_end = clause
    if _ENDS_ASKING.search(text, begin, clause_end):
        return False
    opener = _DECLINED if declined else _ASKED_NEGATED
    for found in opener.finditer(text, begin, clause_end):
        if found.start() > start:
            break
        lead = text[begin : found.start()]
        if (
            len(lead.strip()) <= 12
            and PRODUCT_MASK not in lead
            and UNKNOWN_MASK not in lead
            and not _ASKS.search(lead)
            and not _CONTRAST.search(text, found.end(), end)
        ):
            return True
    relation = _RELATION_BEFORE.search(text, max(begin, start - 3), start)
    if relation is not None and relation.end() == start and _UNRELATED_AFTER.match(text, end):
        return True
    return bool(
        declined
        and _NO_BEFORE.search(text, max(begin, start - 4), start)
        and _NOT_WANTED_AFTER.match(text, end)
    )


def ruled_out_clauses(text: str) -> list[tuple[int, int]]:
    """The spans a negated verb of asking or a declined telling rules out to the end of its
    clause (不是问我的订单, "i'm not asking about my own phone —"): from the opener on."""
    spans: list[tuple[int, int]] = []
    for found in _DECLINED.finditer(text):
        clause = _scope_clause(text, found.start(), found.end())
        if clause is None:
            continue
        clause_end = clause[1]
        if found.end() < clause_end and ruled_out(text, found.end(), clause_end):
            spans.append((found.start(), clause_end))
    return spans


#: "这不是售后问题": a topic the asker says the question is no matter of.
_NOT_A_MATTER_BEFORE = re.compile(r"(?:这|这个|那|那个|我这|我这个)?(?:并)?不是\s*$")
_NOT_A_MATTER_AFTER = re.compile(r"\s*(?:的|方面的|相关的|类的)?(?:问题|事情|事)")
#: "不是换货哈，我问退货": the clause is only the negated topic and a chat particle; the
#: topic asked follows in another clause.
_NOTHING_BUT_PARTICLES = re.compile(r"[\s哈啊呀啦嘛哦噢喔]*")


def topic_ruled_out(text: str, start: int, end: int) -> bool:
    """Whether the attribute word ``text[start:end]`` names a topic the question says it
    is not about (跟价格无关, 不是问价格, 这不是售后问题, "not asking about the price")."""
    if ruled_out(text, start, end):
        return True
    clause = _scope_clause(text, start, end)
    if clause is None:
        return False
    begin, clause_end = clause
    before = _NOT_A_MATTER_BEFORE.search(text, begin, start)
    return bool(
        before is not None
        and not text[begin : before.start()].strip()
        and (
            _NOT_A_MATTER_AFTER.match(text, end)
            or _NOTHING_BUT_PARTICLES.fullmatch(text, end, clause_end)
        )
        and not _ENDS_ASKING.search(text, begin, clause_end)
    )


def only_ruled_out(hits: Sequence[Hit], context: CueContext, *, declined: bool = True) -> bool:
    """Whether every cue is a topic the question rules out (``ruled_out``), in a question
    that asks an attribute outside it."""
    text = context.text
    return (
        bool(hits)
        and all(ruled_out(text, h.start, h.end, declined=declined) for h in hits)
        and any(
            not ruled_out(text, a.start, a.end, declined=declined) for a in context.attribute_hits
        )
    )


def only_set_aside(hits: Sequence[Hit], text: str) -> bool:
    """Whether every cue in ``hits`` is set aside: by a negation right before it (or a
    negated verb of asking or telling), by one before the cue it follows in the same noun
    phrase ("not the current coupon price"), or as the gift the asker gives someone (a
    purpose, not a promotion)."""
    aside_until = -1
    for hit in sorted(hits, key=lambda h: (h.start, h.end)):
        follows = aside_until >= 0 and (
            hit.start < aside_until or not text[aside_until : hit.start].strip()
        )
        if not (follows or _not_asked(hit, text) or _a_present(hit, text)):
            return False
        aside_until = max(aside_until, hit.end)
    return bool(hits)


def _clause_asks(text: str, hit: Hit) -> bool:
    """Whether the clause of ``hit`` asks (a clause past the reach counts as asking)."""
    clause = _scope_clause(text, hit.start, hit.end)
    return clause is None or _ENDS_ASKING.search(text, *clause) is not None


def only_set_aside_unasked(hits: Sequence[Hit], context: CueContext) -> bool:
    """``only_set_aside`` for a cue of advice, prediction or comparison, in a clause that
    does not ask (不要你觉得，…; "不用等新款吗" still asks), of a question asking an attribute."""
    text = context.text
    return (
        bool(context.attribute_hits)
        and only_set_aside(hits, text)
        and not any(_clause_asks(text, h) for h in hits)
    )


#: The asker's own purchase denied (我还没买过, 我没下单): no order of theirs to be asked about.
_NEVER_BOUGHT = re.compile(
    r"(?:我|俺|咱)(?:们)?(?:还|都|从|从来|也|暂时)?(?:没|没有|未|从没|从未|还没|还未)(?:有)?"
    r"(?:在你们这|在你们家|在这)?(?:买|下单|下过单|购买|订)(?:过)?(?!到)"
)


def only_never_bought(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every personal cue is the asker saying they have bought nothing (我还没买过
    东西): a would-be customer asking a store rule, not one asking about an order."""
    return bool(hits and context.attribute_hits) and all(
        _NEVER_BOUGHT.match(context.text, h.start) for h in hits
    )


#: A time word of today or now, then a verb of asking (今天想问个…, 今天顺便问下): it dates
#: the asking, not the moment the answer is for.
_ASKING_VERB_AFTER = re.compile(
    r"\s*(?:我)?(?:想|再|来|又|顺便|就|先|也|还)*(?:问|请教|咨询|打听)"
    r"|\s*,?\s*(?:i|we)\s+(?:just\s+)?(?:want|wanted|would like|'d like|have)\s+(?:to\s+)?"
    r"(?:ask|a question)\b"
)
_ASKING_TIMES = frozenset(("今天", "今日", "今晚", "现在", "这会儿", "today", "now"))


def _dates_asking(hit: Hit, text: str) -> bool:
    return hit.text.strip() in _ASKING_TIMES and bool(_ASKING_VERB_AFTER.match(text, hit.end))


#: Quotation marks around the words of a rule or an advert the asker quotes (「…」,
#: 『…』, “…”, '…' or "…" after a verb of saying or writing).
_QUOTED = re.compile(
    r"(?:写|写着|写的|说|说的|标|标着|显示|says|said|states|reads|claims|mentions)\s*[:：]?\s*"
    r"(?:「[^」]*」|『[^』]*』|“[^”]*”|‘[^’]*’|'[^']*'|\"[^\"]*\")"
)


def only_quoted(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every cue stands inside a quotation of what a page, an advert or a rule
    says (规则写的「今天下单…」, "your FAQ says 'today and always'"), in a question asking an
    attribute that does not change with the moment: the cue is quoted, not asked."""
    if not context.attribute_hits or any(
        parse_label(a.label).name in context.changing_attributes for a in context.attribute_hits
    ):
        return False
    spans = [(m.start(), m.end()) for m in _QUOTED.finditer(context.text)]
    return bool(hits) and all(any(s < h.start and h.end < e for s, e in spans) for h in hits)


#: English adjective endings: an attribute phrase ending in one names a property
#: ("water resistant", "waterproof"), not a thing ("battery", "storage").
_ADJECTIVE_END = re.compile(r"(?:proof|ant|ent|ible|able|ive|ous)$")


def only_rating_asked(hits: Sequence[Hit], text: str, attribute_hits: Sequence[Hit]) -> bool:
    """Whether every cue in ``hits`` is "enough" right after an attribute phrase that is
    an adjective: "water resistant enough for swimming" asks the rating the spec gives;
    "is 256GB enough", "good enough for" stay a recommendation."""
    adjectives = [a for a in attribute_hits if _ADJECTIVE_END.search(a.text.strip())]
    return bool(hits) and all(
        h.text.strip().startswith("enough")
        and not _ASKERS_OWN_NEED.match(text, h.start + len(h.text) - len(h.text.lstrip()))
        and any(a.end <= h.start and not text[a.end : h.start].strip() for a in adjectives)
        for h in hits
    )


#: "enough for my swims": the asker's own need, which the rating alone does not answer.
_ASKERS_OWN_NEED = re.compile(r"enough\s+for\s+(?:my|our|me|us)\b")


@dataclass(frozen=True, slots=True)
class CueContext:
    """What tells whether an intent's cues in a question are meant as that intent."""

    text: str
    #: Strong attribute phrases of the question ("price protection", "water resistant").
    strong_attribute_hits: Sequence[Hit]
    #: Spans of adverbs that modify an adjective (比较 in 车位比较小); asked lazily,
    #: since it costs a part-of-speech pass.
    degree_adverbs: Callable[[], frozenset[tuple[int, int]]]
    #: attribute → the words of its multi-word phrases ("difference" of price protection's
    #: "refund the difference").
    phrase_words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: Every attribute word of the question, strong or weak (电池包质保).
    attribute_hits: Sequence[Hit] = ()
    #: Word boundaries of ``text``.
    boundaries: frozenset[int] = frozenset()
    #: Specs whose answer changes with the moment (a price): a hypothetical or planned
    #: time may change it, so a time word is never read past for them.
    changing_attributes: frozenset[str] = frozenset()
    #: Spans of bounds with "than" on a value ("less than 1.3kg"): the asker's limit on
    #: the product's own value, no other product.
    value_bounds: Sequence[tuple[int, int]] = ()


def _word_of_asked_attribute(hit: Hit, context: CueContext) -> bool:
    """Whether ``hit`` is a word of the phrases of an attribute the question asks in
    other words: "the price drops …, is the difference refunded" states price
    protection, whose own phrase is "refund the difference"."""
    word = hit.text.strip()
    return any(
        word in context.phrase_words.get(parse_label(a.label).name, ())
        for a in context.strong_attribute_hits
        if not a.overlaps(hit)
    )


def only_other_words(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every compare cue is a word of something else: inside a multi-word
    attribute phrase ("refund the difference"), a word of such a phrase of an attribute
    the question asks otherwise, or a degree adverb ("车位比较小": 比较 before an
    adjective is "fairly")."""
    phrases = [a for a in context.strong_attribute_hits if " " in a.text.strip()]
    if not hits:
        return False
    if all(
        any(h.overlaps(a) for a in phrases) or _word_of_asked_attribute(h, context) for h in hits
    ):
        return True
    if all(_preferred_action(h, context) for h in hits):
        return True
    adverbs = context.degree_adverbs()
    return all((h.start, h.end) in adverbs or any(h.overlaps(a) for a in phrases) for h in hits)


#: "would rather V than V": a preference between two things the asker does, its "than"
#: between two verbs ("i'd rather ask than assume"), no product or value on either side.
_PREFERENCE_BEFORE = re.compile(
    r"(?:\b(?:i'?d|i’d|i would|we'?d|we’d|we would)\s+|^\s*|[,.;:!?]\s*)"
    r"(?:rather|sooner)\s+(?:[a-z'’]+\s+){0,3}$"
)
_PREFERENCE_AFTER = re.compile(r"\s+(?!(?:the|a|an|one|it|that|this|those|these|mine)\b)[a-z]+\b")


def _preferred_action(hit: Hit, context: CueContext) -> bool:
    """Whether ``hit`` is the "than" of the asker's "i'd rather V than V": what they
    prefer to do, no product, value or attribute word on either side ("would you
    rather get more storage than ram" asks advice)."""
    text = context.text
    if hit.text.strip() != "than":
        return False
    before = _PREFERENCE_BEFORE.search(text, max(0, hit.start - 60), hit.start)
    after = _PREFERENCE_AFTER.match(text, hit.end)
    if before is None or after is None:
        return False
    start, end = before.start(), after.end()
    span = text[start:end]
    return not (
        PRODUCT_MASK in span
        or UNKNOWN_MASK in span
        or any(ch.isdigit() for ch in span)
        or any(start < a.end and a.start < end for a in context.attribute_hits)
    )


#: An A-not-A question of a verb (要不要, 需不需要): "is it so or not".
_A_NOT_A = re.compile(r"(.)不\1")
#: What may stand between an A-not-A 要 and its object: an adverb and a verb of paying
#: (要不要另外加运费), no name, no clause break.
_TO_OBJECT = re.compile(r"[\u4e00-\u9fff]{0,4}")
#: Sentence-final particles of a chat question.
_FINAL_PARTICLES = re.compile(r"[呀啊吗呢么嘛哈呐的~～]*\s*(?:$|[,，.。?？!！;；])")


#: Who pays a fee put before an A-not-A 要 (运费要不要我自己出): the buyer, then a verb of
#: paying, ending the clause.
_PAYER_PAYS = re.compile(
    r"\s*(?:我|我们|买家|顾客|客户)(?:自己)?(?:来|另外|单独)?(?:出|付|承担|掏|补)"
)
#: What may stand between a fee put first and the A-not-A after it (运费的话要不要…).
_TOPIC_GAP = re.compile(r"\s*(?:的话|是|还|也|这块)?\s*")


def _fee_object(hit: Hit, fee: Hit, text: str) -> bool:
    """Whether ``fee`` is the object of the A-not-A ``hit``: after it, ending the clause
    (要不要运费), or put first as the topic with the buyer paying after the cue (运费要不要我
    自己出: "do I pay the shipping myself", a fact of the store's rules)."""
    if fee.start >= hit.start and fee.end > hit.end:
        # 要运费 is a phrase of the vocabulary too: its 要 is the cue's last one.
        return bool(
            _TO_OBJECT.fullmatch(text, hit.end, max(hit.end, fee.start))
            and _FINAL_PARTICLES.match(text, fee.end)
        )
    if fee.end > hit.start or not _TOPIC_GAP.fullmatch(text, fee.end, hit.start):
        return False
    pays = _PAYER_PAYS.match(text, hit.end)
    return pays is not None and _FINAL_PARTICLES.match(text, pays.end()) is not None


def only_fee_asked(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every recommend cue is an A-not-A 要 whose object is a fee the vocabulary
    names (偏远地区要不要运费, 运费要不要我出: "is there a charge", a fact of the store's
    rules); 要不要加钱上… or 要不要买… still ask for advice."""
    text = context.text
    fees = [a for a in context.strong_attribute_hits if a.text.strip().endswith("费")]
    return bool(hits) and all(
        _A_NOT_A.search(h.text) and any(_fee_object(h, a, text) for a in fees) for h in hits
    )


#: The modal 会 before the existential 有 and a question word (开箱会有哪些东西): "what is
#: there", said of what a product is; 还会有… ("still") looks ahead.
_MODAL_EXISTENTIAL = re.compile(r"(?<!还)(?P<cue>会有)\s*(?:哪些|哪几|什么|啥|几|多少)")
#: Between a modifier and the noun it modifies: 的 and a few characters (仿生).
_MODIFIED = re.compile(r"的?[\u4e00-\u9fff]{0,3}")
#: A copula before a cue: the cue describes what the product is (是不是新一代的芯片).
_COPULA_BEFORE = re.compile(r"(?:是不是|是否|是)\s*$")


def _present_described(hit: Hit, context: CueContext) -> bool:
    """A predict cue that describes the product as it is: a modal existential asking
    what there is (开箱会有哪些东西), or a generation word that a copula says the
    product's own attribute is (是不是新一代的仿生芯片); 会有…吗, 新一代什么时候出 and
    是新一代吗 still look ahead."""
    text = context.text
    existential = _MODAL_EXISTENTIAL.match(text, hit.start)
    if existential is not None and existential.end("cue") == hit.end:
        return True
    copula = _COPULA_BEFORE.search(text, max(0, hit.start - 3), hit.start)
    if "代" not in hit.text or copula is None:
        return False
    # 新一代的仿生芯片: the attribute word heads the noun phrase the cue begins.
    return any(
        a.start >= hit.end and _MODIFIED.fullmatch(text, hit.end, a.start)
        for a in context.strong_attribute_hits
    )


#: A purchase verb right after a time word (下个月买, 明年去提): the time is when the asker
#: buys, not something the product will do (换代 is the product's generation changing).
_BUYS_THEN = re.compile(
    r"\s*(?:再|就|要|去|来|才|准备|打算)?\s*(?:买|提车|提|换(?!代)|入手|入|下单|购买|购入|订购|订|预订|拿)"
)
#: An English purchase plan of the asker's: "i'm planning to buy", "we want to get".
_PURCHASE_PLAN = re.compile(
    r"\b(?:i|we|i'?m|im|we'?re|i am|we are)\b[^.,;:?!]{0,20}?\b(?:plan|plans|planning|"
    r"going|gonna|thinking of|thinking about|hoping|want|wanna|intend|intending)\b(?: to)?\s+"
    r"(?:buy|get|order|pick up|purchase|switch to|upgrade to|grab|lease|buying|getting|ordering)\b"
)
_CLAUSE_BREAK = re.compile(r"[.,;:?!，。；：？！]")


def _purchase_planned(hit: Hit, context: CueContext) -> bool:
    """A predict cue that only dates the asker's own purchase: a time word before a
    purchase verb (打算下个月买…), or a cue inside an English purchase plan of the
    asker's ("we plan to get one next year"), in a question that also asks an attribute.
    "下个月会降价吗" and "will it get cheaper next month" still look ahead."""
    if not context.attribute_hits:
        return False
    text = context.text
    if _BUYS_THEN.match(text, hit.end):
        return True
    for plan in _PURCHASE_PLAN.finditer(text):
        end = _CLAUSE_BREAK.search(text, plan.end())
        if plan.start() <= hit.start and hit.end <= (end.start() if end else len(text)):
            return True
    return False


#: A time adverbial among the predict cues (下周, 明年, 到时候, "in a year", "next month"):
#: it says when, not that something will happen.
_TIME_ADVERBIAL = re.compile(
    r"(?:下|明|后|过(?:一|两|几)?)(?:个)?(?:周|星期|礼拜|月|年|季度|阵子|段时间)|下半年|年底"
    r"|将来|未来|到时候|到时|那时候?|以后"
    r"|next (?:week|month|quarter|year|season|spring|summer|autumn|fall|winter)"
    r"|in (?:a|one|two|three|a few|few|several|some|\d+) (?:weeks?|months?|years?)"
    r"|later this year|someday|eventually"
)
#: Words that open a conditional clause (万一坏了, 如果下周…, "what if it breaks").
_CONDITIONAL = re.compile(r"万一|如果|要是|假如|假设|假使|倘若|若是|\bif\b|\bin case\b|\bsuppose\b")
#: Words that point back to a time stated before (到时候: "at that time").
_ANAPHORIC_TIME = re.compile(r"到时候|到时|那时候?|到那时")
#: Words that open a clause about the asker: a reason (因为下周要出差) or the asker as its
#: subject (我下周要出差, "we're away next week").
_ASKER_CLAUSE = re.compile(
    r"\s*(?:因为|由于|\b(?:because|since|cause|cuz)\b|我|咱|\b(?:i|i'?m|we|we'?re)\b)"
)
#: What ends a clause: punctuation, or a space between Chinese words (chat writes clauses
#: apart by spaces).
_CLAUSE_END = re.compile(r"[.,;:?!，。；：？！]|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
#: A question word or particle: the clause asks something itself (几, but not the
#: approximate numerals 十几, 好几: "ten-odd", "several").
_ASKS = re.compile(
    r"[吗么呢?？]|什么|多少|(?<![好十])几|哪|怎么|会不会|\b(?:will|what|how|when|which)\b"
)
#: A modal or auxiliary that opens an English main clause after "if …" ("if i buy it, will
#: it …"): the conditional clause ends before it.
_MAIN_CLAUSE = re.compile(r"\b(?:will|would|can|could|does|do|is|are|should|what|how)\b")


def _clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause around ``text[start:end]``."""
    begin = 0
    for found in _CLAUSE_END.finditer(text, 0, start):
        begin = found.end()
    after = _CLAUSE_END.search(text, end)
    return begin, after.start() if after is not None else len(text)


def _straddles_word(hit: Hit, boundaries: frozenset[int]) -> bool:
    """A two-character cue made of a word and the first character of the next (要|出差):
    it reads across a word, so it is not the cue (要出新款 keeps 要|出|新款)."""
    return (
        len(hit.text) == 2
        and hit.start + 1 in boundaries
        and hit.end not in boundaries
        and bool(boundaries)
    )


def _hypothetical_or_planned(hit: Hit, context: CueContext) -> bool:
    """A time adverbial that belongs to the asker's hypothesis or plan, not to the thing
    asked: inside a conditional clause ("what if it breaks in a year", 如果下个月坏了),
    pointing back to one (万一坏了…到时候找谁), or in a clause giving the asker's reason
    that asks nothing (因为下周要出差). Only for a question that asks an attribute that
    does not change with the moment: "下周会降价吗" has its own cue, and a price may
    change by then."""
    if _TIME_ADVERBIAL.fullmatch(hit.text.strip()) is None or not context.attribute_hits:
        return False
    if any(
        parse_label(a.label).name in context.changing_attributes for a in context.attribute_hits
    ):
        return False
    text = context.text
    begin, end = _clause_span(text, hit.start, hit.end)
    lead = text[begin : hit.start]
    conditions = list(_CONDITIONAL.finditer(lead))
    if conditions and not _MAIN_CLAUSE.search(lead, conditions[-1].end()):
        return True
    if _ANAPHORIC_TIME.fullmatch(hit.text.strip()) and _CONDITIONAL.search(text, 0, begin):
        return True
    clause = text[begin:end]
    return bool(
        _ASKER_CLAUSE.match(clause)
        and not _ASKS.search(clause)
        and PRODUCT_MASK not in clause
        and UNKNOWN_MASK not in clause
        and not any(begin <= a.start < end for a in context.attribute_hits)
    )


def only_present_described(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every predict cue describes the product as it is, only dates the asker's
    own purchase or hypothesis, or reads across a word."""
    return bool(hits) and all(
        _present_described(h, context)
        or _purchase_planned(h, context)
        or _hypothetical_or_planned(h, context)
        or _straddles_word(h, context.boundaries)
        for h in hits
    )


#: Recent-time words that may date what someone has been doing (最近在看…, 这段时间在考虑…).
_RECENT_TIME = frozenset(("最近", "近期", "这几天", "这段时间", "这阵子", "前阵子", "前段时间"))
#: A person opening the clause before the time word: the asker or someone of theirs (我,
#: 我爸, 我们家, 他, 我女朋友), after a chat filler (就是, 然后).
_PERSON_LEAD = re.compile(
    r"\s*(?:就是|然后|其实|那个|嗯)?\s*(?:我|咱|俺|他|她)(?:们)?(?:家)?[\u4e00-\u9fff]{0,3}?\s*$"
)
#: What a shopper does over a while: looks at, considers, researches, picks, wants to buy.
_SHOPPING_ACTIVITY = re.compile(
    r"\s*(?:一直|都|也|正|还)?(?:在|正在)?\s*(?:看|考虑|关注|研究|纠结|挑|选|了解|琢磨|物色|对比"
    r"|想买|想换|打算买|打算换|准备买|准备换)"
)


def _dates_activity(hit: Hit, text: str) -> bool:
    """A recent-time word that dates what a person of the asker's has been doing (我爸最近
    在看比亚迪汉, 我最近在考虑…): the time of their shopping, in a clause that asks
    nothing; "最近有优惠吗" and "最近价格多少" ask about the moment."""
    if hit.text.strip() not in _RECENT_TIME:
        return False
    begin, end = _clause_span(text, hit.start, hit.end)
    return bool(
        _PERSON_LEAD.fullmatch(text, begin, hit.start)
        and _SHOPPING_ACTIVITY.match(text, hit.end)
        and not _ASKS.search(text, begin, end)
    )


def _in_hypothesis(hit: Hit, text: str) -> bool:
    """Whether ``hit`` stands inside a conditional clause that asks nothing itself (如果拆封
    了觉得不合适，还能退吗: the asker imagines a case and asks the rule for it); a clause
    with a question word (如果要拍照哪个合适) or a number (an order, an amount) is not."""
    begin, end = _clause_span(text, hit.start, hit.end)
    lead = text[begin : hit.start]
    conditions = list(_CONDITIONAL.finditer(lead))
    return bool(
        conditions
        and not _MAIN_CLAUSE.search(lead, conditions[-1].end())
        and not _ASKS.search(text, begin, end)
        and not any(ch.isdigit() for ch in text[begin:end])
    )


#: A purchase the asker, someone of theirs or anyone makes, said with its subject (我买了,
#: 有人下单, "i buy", "if my friend bought"): no possessive, so inside a hypothesis it is an
#: imagined purchase, not an order of anyone's.
_IMAGINED_PURCHASE = re.compile(
    r"(?:(?:我|咱|俺)(?:的)?(?:朋友|家人|同事|老婆|老公|爸|妈|哥|姐|弟|妹)?|有人|别人|朋友|家人"
    r"|\b(?:i|we|someone|somebody|anyone|anybody|a customer"
    r"|(?:a|my) (?:friend|wife|husband|mom|mum|dad|son|daughter|brother|sister|colleague))\b)\s*"
    r"(?:买|下单|订|拍|购买|\b(?:buy|buys|bought|order|orders|ordered|purchase|purchased)\b)"
)


def only_hypothetical(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every cue stands in a hypothesis of a question that asks an attribute: a
    personal cue only as a purchase the asker imagines (如果我买了东西没拆封…), any other
    cue as it stands (如果觉得不合适…还能退吗). "如果我的订单没发货" stays personal."""
    return bool(hits and context.attribute_hits) and all(
        _in_hypothesis(h, context.text) for h in hits
    )


def only_imagined_purchase(hits: Sequence[Hit], context: CueContext) -> bool:
    return only_hypothetical(hits, context) and all(
        _IMAGINED_PURCHASE.match(h.text.strip()) for h in hits
    )


#: 帮 before someone of the asker's and a verb of shopping that ends the clause (我在帮我弟
#: 看, 帮我们部门挑一下): the asker shops on someone's behalf. 帮我查…, 帮我弟买的手机
#: (a purchase made) and 帮我妈看看订单 (a verb with an object) stay the asker's own case.
_ON_BEHALF = re.compile(
    r"帮(?:我|咱)们?[\u4e00-\u9fff]{1,4}?(?:看|选|挑|挑选|物色|参谋|问|买)(?:看|一下|下)?"
    r"\s*(?:的话|呢|哈|呀|啊)?\s*(?:$|[,，.。?？!！;；])"
)


def only_on_behalf(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every personal cue is the 帮 of shopping for someone else (我在帮我弟看):
    who the product is for, not an order or an account of the asker's."""
    return bool(hits and context.attribute_hits) and all(
        h.text.startswith("帮") and _ON_BEHALF.match(context.text, h.start) for h in hits
    )


#: Reported speech opening a clause: a source that says something (我闺蜜说, 网上都说, 听说,
#: 网上说法): what others claim, which the asker does not ask.
_REPORTED = re.compile(
    r"(?:听说|据说|听人说|说法|(?:网上|网友|有人|别人|大家|人家|他|她|他们|朋友|同事|闺蜜|老公|老婆"
    r"|媳妇|爸|妈|哥|姐|弟|妹|男朋友|女朋友|对象|室友|评测|博主|店员|销售)(?:都|也|还|一直)?说)"
)


def _reported(hit: Hit, text: str) -> bool:
    """Whether ``hit`` stands in a clause of reported speech that asks nothing (我闺蜜说那个
    蓝色特别好看, 网上说法不一样); "你说哪个好看" and "听说…是真的吗" ask."""
    begin, end = _clause_span(text, hit.start, hit.end)
    return bool(
        _REPORTED.search(text, begin, hit.start)
        and not _ASKS.search(text, begin, end)
        and text[end : end + 1] not in {"?", "？"}
    )


def only_reported(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every cue is what someone else said, in a question asking an attribute."""
    return bool(hits and context.attribute_hits) and all(_reported(h, context.text) for h in hits)


def only_value_bounds(hits: Sequence[Hit], context: CueContext) -> bool:
    """Whether every compare cue is the "than" of a bound on a value ("weigh less than
    1.3kg?", "thicker than 8.5mm?"): the product is checked against the asker's number,
    not compared with another product ("lighter than the 15")."""
    return bool(hits) and all(
        h.text.strip() == "than"
        and any(start <= h.start and h.end <= end for start, end in context.value_bounds)
        for h in hits
    )


#: The cues of an intent that a question can carry without meaning it, as a table:
#: when every cue of the intent the gate found passes its test, the gate is asked again
#: without that intent (a structural reason, such as two products named, is never read
#: past).
SET_ASIDE_TESTS: Mapping[str, Callable[[Sequence[Hit], CueContext], bool]] = MappingProxyType(
    {
        "compare": lambda hits, context: (
            only_other_words(hits, context)
            or only_reported(hits, context)
            or only_value_bounds(hits, context)
            or only_ruled_out(hits, context)
        ),
        "predict": lambda hits, context: (
            only_present_described(hits, context)
            or only_ruled_out(hits, context)
            or only_set_aside_unasked(hits, context)
            or only_quoted(hits, context)
        ),
        "recommend": lambda hits, context: (
            only_rating_asked(hits, context.text, context.strong_attribute_hits)
            or only_fee_asked(hits, context)
            or only_hypothetical(hits, context)
            or only_reported(hits, context)
            or only_ruled_out(hits, context)
            or only_set_aside_unasked(hits, context)
        ),
        "personal": lambda hits, context: (
            only_imagined_purchase(hits, context)
            or only_on_behalf(hits, context)
            or only_ruled_out(hits, context, declined=False)
            or only_never_bought(hits, context)
        ),
        "realtime": lambda hits, context: (
            only_set_aside(hits, context.text)
            or only_ruled_out(hits, context)
            or only_quoted(hits, context)
            or (
                bool(hits)
                and all(
                    _dates_activity(h, context.text) or _dates_asking(h, context.text) for h in hits
                )
            )
        ),
    }
)


def volatile_attributes(attributes: Mapping[str, Any]) -> frozenset[str]:
    """Attributes whose answer may change with the moment: every policy (a store rule) and
    each spec whose ``attributes.json`` description sends some of its questions to the
    realtime intent (a price: "current ... prices are intent 'realtime'")."""
    return frozenset(
        str(attr_id)
        for attr_id, raw in attributes.get("attributes", {}).items()
        if raw.get("kind") != "spec" or "realtime" in str(raw.get("description", ""))
    )


#: Chinese yes/no questions end in 吗 or, in chat, in 么 / 嘛 or an A-not-A 不 (靠谱不);
#: a perfective question (到货了吗) also in 没 (到货了没, 到货没).
_PARTICLE_VARIANTS = ("么", "嘛", "不")


def question_particle_variants(phrase: str) -> tuple[str, ...]:
    """``phrase`` and, when it is a Chinese question ending in 吗, its chat variants."""
    if len(phrase) < 3 or not phrase.endswith("吗"):
        return (phrase,)
    stem = phrase[:-1]
    variants = [phrase, *(stem + particle for particle in _PARTICLE_VARIANTS)]
    if stem.endswith("了"):
        variants += [stem + "没", stem[:-1] + "没"]
    return tuple(variants)


def colloquial_forms(phrase: str) -> tuple[str, ...]:
    """``phrase`` written with the colloquial words of the written ones it has."""
    return tuple(phrase.replace(w, c) for w, c in COLLOQUIAL if w in phrase)


def _describe(hits: Sequence[Hit]) -> str:
    return "matched " + ", ".join(repr(h.text) for h in hits[:3])
