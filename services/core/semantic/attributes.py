"""Which attribute a question asks about.

Cues come in strengths: a strong phrase ("电池容量", "battery life") beats a constraint that
implies its attribute ("长焦" → camera), which beats a bare value ("是6.7寸吗" → screen
size), which beats a weak phrase ("how much", "多少" → price). Within a strength, the
lexicon's dominance pairs settle the usual overlaps (a warranty question that mentions the
battery is about the warranty); whatever is still ambiguous is no fingerprint.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.core.semantic.lexicon import (
    UNIT_ASKED_MARK,
    UNSUPPORTED,
    AttributeSpec,
    Label,
    SlotLexicon,
    parse_label,
)
from services.core.semantic.phrases import Hit, PhraseSet, outermost

#: Constraint keys that name what is asked, not just which variant (lens → camera).
TOPIC_KEYS = ("context", "lens", "method", "coverage", "item_state")


@dataclass(frozen=True, slots=True)
class AttributeChoice:
    attribute: str | None
    reason: str
    hits: tuple[Hit, ...] = ()
    #: Settled by a stated value: a number in a unit only this attribute uses for the
    #: product's category ("is it 171 g?") or a value its value patterns read ("是A18吗"):
    #: as strong as a phrase, also for the second reader.
    by_unit: bool = False


class AttributeResolver:
    __slots__ = ("_dominance", "_phrases", "_specs", "_topic_attribute")

    def __init__(self, lexicon: SlotLexicon) -> None:
        self._specs = lexicon.attributes
        self._dominance = lexicon.dominance
        self._phrases = PhraseSet(lexicon.attribute_phrases, lexicon.attribute_patterns)
        topic: dict[str, str] = {}
        for key in TOPIC_KEYS:
            owners = [a for a, spec in self._specs.items() if key in spec.constraint_keys]
            if len(owners) == 1:
                topic[key] = owners[0]
        self._topic_attribute = topic

    def topic_of(self, key: str) -> str | None:
        """The attribute a constraint key names by itself (lens → camera), if one."""
        return self._topic_attribute.get(key)

    def spec(self, attribute: str) -> AttributeSpec:
        return self._specs[attribute]

    def find(self, text: str, boundaries: frozenset[int]) -> list[Hit]:
        return self._phrases.find(text, boundaries)

    def resolve(
        self,
        hits: Sequence[Hit],
        category: str | None,
        constraint_keys: Iterable[str],
        text: str = "",
    ) -> AttributeChoice:
        stated_keys = frozenset(constraint_keys)
        labelled = [(hit, parse_label(hit.label)) for hit in _outermost_and_rivals(hits)]
        labelled = [(h, lab) for h, lab in labelled if lab.applies_to(category)]
        labelled = self._without_unit_readings(labelled, category)
        if any(lab.name == UNSUPPORTED for _, lab in labelled):
            return AttributeChoice(None, "asks about something outside the attribute vocabulary")

        def pick(kind: str) -> tuple[set[str], set[str]]:
            named = {lab.name for _, lab in labelled if lab.kind == kind}
            return {a for a in named if self._applies(a, category)}, named

        purposed = _in_purpose_clauses(labelled, text)
        if purposed:
            # "想配个充电头，iPhone 15 有线最高多少瓦": the thing the asker means to get is
            # why they ask, not what. The attribute asked elsewhere wins where it
            # dominates that thing's (or a stated key names it); a price, or a weaker
            # cue, may be the thing's own: the two readings compete.
            rest = [(h, lab) for h, lab in labelled if id(h) not in purposed]
            meant = {lab.name for h, lab in labelled if id(h) in purposed}
            asked_elsewhere = {lab.name for _, lab in rest if lab.kind == "strong"}
            dominating = set().union(
                *(self._dominance.get(a, frozenset()) for a in asked_elsewhere)
            )
            if asked_elsewhere and meant - asked_elsewhere <= dominating:
                labelled = rest
            elif asked_elsewhere:
                return AttributeChoice(None, "a cue in a purpose clause competes")
            elif any(k in self._topic_attribute for k in stated_keys):
                labelled = rest
            elif rest or any(_is_time_before(text, h) for h, _ in labelled if id(h) in purposed):
                # "买充电头之前…": the clause sets the time; what is asked is elsewhere
                return AttributeChoice(None, "a cue in a purpose clause competes")
        strong, strong_named = pick("strong")
        strong = self._without_variant_keys(strong, stated_keys)
        if strong:
            # "没拆封的话，寄回来运费谁出": a stated term of a store policy (the return
            # policy's opened or not) names that policy, which outranks the cue of a
            # part of it (the shipping fee of a return).
            strong |= {
                topic
                for key in stated_keys
                if (topic := self._topic_attribute.get(key)) is not None
                and self._specs[topic].kind == "policy"
                and self._applies(topic, category)
                and strong <= self._dominance.get(topic, frozenset())
            }
            # "保修期内坏了找谁修": a cue inside a time frame ("within the warranty
            # period") states when, not what is asked: it dominates no other cue.
            framed = frozenset(
                lab.name
                for h, lab in labelled
                if lab.kind == "strong" and text and _in_time_frame(text, h)
            )
            # A cue that is a whole question of its own (带充电器吗) is asked in its own
            # right: no other cue outranks it ("Mate 60 送充电器吗 多少瓦的" asks two).
            asked_alone = frozenset(
                lab.name
                for h, lab in labelled
                if lab.kind == "strong"
                and (
                    (
                        h.text.rstrip().endswith(_OWN_QUESTION_ENDS)
                        and _MORE_ASKED.match(text, h.end) is not None
                    )
                    or _OWN_QUESTION.match(text, h.end) is not None
                )
            )
            choice = self._choose(strong, labelled, "strong", framed, asked_alone)
            rival = self._rival_value(choice.attribute, labelled, category, text)
            if choice.attribute is not None and rival is not None:
                # "换新…是8年吗": the phrase reads one attribute, the value asked to be
                # confirmed is another's (a warranty period): two readings compete.
                return AttributeChoice(
                    None, f"a stated value of {rival} competes with {choice.attribute}"
                )
            if choice.attribute is not None and any(
                parse_label(h.label) == Label("value", choice.attribute, "", frozenset())
                and any(h.inside(c.start, c.end) for c in choice.hits)
                for h in hits
            ):
                # "is it IP68": the phrase is also a value the attribute's own value
                # patterns read, which settles the attribute as a stated value does.
                return AttributeChoice(choice.attribute, choice.reason, choice.hits, True)
            return choice
        implied = {self._topic_attribute[k] for k in stated_keys if k in self._topic_attribute}
        implied = {a for a in implied if self._applies(a, category)}
        if len(implied) == 1:
            return self._choose(implied, labelled, "implied")
        values, values_named = pick("value")
        if values:
            # "小米14 1小时": one number and unit read as two attributes' values (a
            # delivery time, a battery life) are two readings of the same words: no
            # attribute's cue outranks the other's there, whatever dominates elsewhere.
            read_as: dict[tuple[int, int], set[str]] = {}
            for hit, lab in labelled:
                if lab.kind == "value" and lab.name in values:
                    read_as.setdefault((hit.start, hit.end), set()).add(lab.name)
            shared = next((names for names in read_as.values() if len(names) > 1), None)
            if shared is not None:
                return AttributeChoice(
                    None, f"ambiguous attribute (value): {', '.join(sorted(shared))}"
                )
            # A stated value settles the attribute as a unit does ("是A18吗" names the
            # chip by the catalog's own value pattern): the second reader, reading
            # character n-grams, sees "a0" where the rules see a processor.
            choice = self._choose(values, labelled, "value")
            return AttributeChoice(
                choice.attribute, choice.reason, choice.hits, choice.attribute is not None
            )
        weak, weak_named = pick("weak")
        if weak:
            choice = self._choose(weak, labelled, "weak")
            # "how long is it in mm": the unit asked names the attribute as a stated
            # value's unit does (a unit only that attribute uses in the category).
            asked = any(parse_label(h.label).value == UNIT_ASKED_MARK for h in choice.hits)
            return AttributeChoice(choice.attribute, choice.reason, choice.hits, asked)
        if strong_named or values_named or weak_named:
            return AttributeChoice(None, "attribute does not apply to this product")
        return AttributeChoice(None, "no attribute found")

    def _without_variant_keys(self, candidates: set[str], stated_keys: frozenset[str]) -> set[str]:
        """Drop an attribute that is also a key whose value the question states, when
        another candidate varies by that key: in "the biggest storage, the 1 TB one: list
        price?" the storage words pick the variant whose price is asked."""
        dropped = {
            a
            for a in candidates
            if a in stated_keys
            and any(a in self._specs[b].constraint_keys for b in candidates if b != a)
        }
        return candidates - dropped if dropped < candidates else candidates

    def _without_unit_readings(
        self, labelled: Sequence[tuple[Hit, Label]], category: str | None
    ) -> list[tuple[Hit, Label]]:
        """Drop a strong phrase that is, on the same words, the unit asked for of another
        attribute the question names by a phrase of its own: in "防水多少米" the 多少米 of
        slang ("how much money") is the metres of the water resistance (防水) asked."""
        strong_names = {
            lab.name
            for _, lab in labelled
            if lab.kind == "strong" and self._applies(lab.name, category)
        }
        # span → the attributes of the weak cues on exactly that span (one pass: linear).
        weak_on: dict[tuple[int, int], set[str]] = {}
        for hit, lab in labelled:
            if lab.kind == "weak" and lab.name in strong_names:
                weak_on.setdefault((hit.start, hit.end), set()).add(lab.name)
        if not weak_on:
            return list(labelled)
        dropped = {
            id(hit)
            for hit, lab in labelled
            if lab.kind == "strong" and weak_on.get((hit.start, hit.end), set()) - {lab.name}
        }
        return [(h, lab) for h, lab in labelled if id(h) not in dropped]

    def _rival_value(
        self,
        attribute: str | None,
        labelled: Sequence[tuple[Hit, Label]],
        category: str | None,
        text: str,
    ) -> str | None:
        """An attribute of a value the question asks to confirm ("是8年吗", "is it 8
        years") that is not ``attribute``: a value none of whose readings is ``attribute``
        (7天 is a return period as well as a delivery time, so it never competes with a
        return question), and that ``attribute`` does not dominate. A value that only
        describes a thing ("有70W适配器吗": the adapter asked about) competes with nothing."""
        if attribute is None:
            return None
        by_span: dict[tuple[int, int], set[str]] = {}
        for hit, label in labelled:
            if (
                label.kind == "value"
                and self._applies(label.name, category)
                and _CONFIRMED.search(text[max(0, hit.start - 8) : hit.start])
            ):
                by_span.setdefault((hit.start, hit.end), set()).add(label.name)
        dominated = self._dominance.get(attribute, frozenset())
        for names in by_span.values():
            if attribute not in names and not names <= dominated:
                return sorted(names - dominated)[0]
        return None

    def _applies(self, attribute: str, category: str | None) -> bool:
        spec = self._specs.get(attribute)
        if spec is None:
            return False
        if category is None:
            return spec.kind == "policy"
        # A policy applies to any question; where attributes.json lists it for the store
        # but not for this category, the extractor keys it store-wide (no product).
        return spec.kind == "policy" or category in spec.applies_to

    def _choose(
        self,
        candidates: set[str],
        labelled: Sequence[tuple[Hit, Label]],
        strength: str,
        framed: frozenset[str] = frozenset(),
        asked_alone: frozenset[str] = frozenset(),
    ) -> AttributeChoice:
        if candidates - framed:
            # "保修期内坏了找谁修": the framed cue says when; another cue says what is asked.
            candidates = candidates - framed
        kept = {
            a
            for a in candidates
            if a in asked_alone
            or not any(
                a in self._dominance.get(b, frozenset())
                for b in candidates
                if b != a and b not in framed
            )
        }
        if len(kept) != 1:
            return AttributeChoice(
                None, f"ambiguous attribute ({strength}): {', '.join(sorted(kept))}"
            )
        (attribute,) = kept
        hits = tuple(h for h, lab in labelled if lab.name == attribute)
        return AttributeChoice(attribute, f"{strength} cue", hits)


#: A cue that ends on a question particle (带充电器吗), or one followed by it, asks a
#: question of its own when another clause follows it.
_OWN_QUESTION_ENDS = ("吗", "么", "嘛")
_MORE_ASKED = re.compile(r"[\s,，。?？!！]+\S")
_OWN_QUESTION = re.compile(r"\s?(?:吗|么|嘛)[\s,，。?？!！]+\S")
#: A time frame around a cue: 保修期内 / 保修期间 / 保修期外 ("within the warranty period"),
#: "within the warranty", "during the warranty", "after the return window".
_FRAME_AFTER = re.compile(r"(?:期)?(?:内|期间|以内|外|以外|后|过后|之后)")
_FRAME_BEFORE = re.compile(
    r"(?:within|during|inside|after|outside|past|beyond|out of)(?: the| its| my)?\s*$"
)


def _in_time_frame(text: str, hit: Hit) -> bool:
    """Whether ``hit`` names the period a question is set in, not what it asks. A frame
    the question ends on asks whether it holds (还在保修期内吗, "still within warranty?")."""
    if not hit.text.isascii():
        if not hit.text.endswith("期"):
            return False
        frame = _FRAME_AFTER.match(text, hit.end)
        if frame is not None:
            return _FRAME_ASKED.match(text, frame.end()) is None
        # 过了保修期 / 超过保修期: past the period
        return (
            _FRAME_PAST_ZH.search(text, max(0, hit.start - 2), hit.start) is not None
            and _FRAME_ASKED.match(text, hit.end) is None
        )
    if _FRAME_ASKED.match(text, hit.end) is not None:
        return False
    return (
        _FRAME_BEFORE.search(text[max(0, hit.start - 12) : hit.start]) is not None
        or _FRAME_OVER.match(text, hit.end) is not None  # "once the warranty is over"
    )


_FRAME_PAST_ZH = re.compile(r"(?:过了|超过|超出|出了|过)$")
_FRAME_OVER = re.compile(
    r"\s+(?:period\s+)?(?:is\s+|has\s+|have\s+)?"
    r"(?:over|expired|expires|ended|ends|run out|runs out|up)\b"
)
#: What ends a question on its frame: a question particle, a question mark, the end.
_FRAME_ASKED = re.compile(r"\s*(?:period\s*)?(?:的)?(?:吗|么|嘛|呢|不|没|\?|？|$)")


#: A purpose clause before a cue: the asker means to get the thing it names (想配个充电头,
#: 打算买个, "want to buy a", "for buying a"), from the clause's start.
_PURPOSE_BEFORE = re.compile(
    r"(?:想|打算|准备|要|需要)(?:再|另外|单独)?(?:配|买|换|入|添|购|购买)?(?:个|一个|只|一只|块|一块|根|一根)?\s*$"
    r"|\b(?:want|wanna|going|plan|planning|need|needs|trying)(?: to)? (?:buy|get|pick up|order)"
    r"(?: (?:a|an|some|the|another|new|extra))*\s*$"
    r"|\bfor (?:buying|getting)(?: (?:a|an|some|the|another|new|extra))*\s*$"
)
#: "买充电头之前": buying the thing is the time the question is set before.
_BUYING_BEFORE = re.compile(r"(?:买|配|购买|选)(?:个|一个|只|一只|块|一块|根|一根)?\s*$")
_BEFORE_TIME = re.compile(r"\s*(?:之前|以前|前)")
_CLAUSE_END = re.compile(r"[,，。.?？!！;；]")


def _in_purpose_clauses(labelled: Sequence[tuple[Hit, Label]], text: str) -> set[int]:
    """The strong cues (by id) that name what a purpose clause says the asker means to
    get: its verb phrase stands right before the cue, in the same clause."""
    found: set[int] = set()
    if not text:
        return found
    for hit, label in labelled:
        if label.kind != "strong":
            continue
        before = text[max(0, hit.start - 24) : hit.start]
        ends = list(_CLAUSE_END.finditer(before))
        clause = before[ends[-1].end() :] if ends else before
        if _PURPOSE_BEFORE.search(clause) or _is_time_before(text, hit):
            found.add(id(hit))
    return found


def _is_time_before(text: str, hit: Hit) -> bool:
    """Whether ``hit`` names the thing bought in a "before buying it" clause (买充电头之前)."""
    before = text[max(0, hit.start - 8) : hit.start]
    return bool(_BUYING_BEFORE.search(before)) and _BEFORE_TIME.match(text, hit.end) is not None


#: What stands right before a value asked to be confirmed.
_CONFIRMED = re.compile(r"(?:是|(?<![a-z])(?:is|be|was)(?: (?:it|that|this|they))?)\s*$")


def _outermost_and_rivals(hits: Sequence[Hit]) -> list[Hit]:
    """The outermost hits, and a strong phrase of another attribute inside a longer hit:
    in "电池保修多久" the battery-life phrase "电池…多久" spans the warranty phrase "保修多久";
    the longer hit alone would hide that two attributes are named (the lexicon's
    dominance, or abstention, then decides). Only when every hit around it is such a
    phrase, starting before it: "几千" of "几千瓦" is the count of watts, not a price."""
    outer = outermost(hits)
    kept = set(outer)
    rivals = []
    # A container starts at most the longest hit's length before the hit: only those
    # are looked at, so a long question's many hits are not compared pairwise.
    by_start = sorted(hits, key=lambda h: h.start)
    starts = [h.start for h in by_start]
    longest = max((h.end - h.start for h in hits), default=0)
    for hit in hits:
        if hit in kept:
            continue
        label = parse_label(hit.label)
        if label.kind != "strong":
            continue
        nearby = by_start[
            bisect_left(starts, hit.start - longest) : bisect_right(starts, hit.start)
        ]
        containers = [
            o
            for o in nearby
            if o is not hit
            and o.start <= hit.start
            and hit.end <= o.end
            and o.end - o.start > hit.end - hit.start
        ]
        if containers and all(
            o.start < hit.start
            and parse_label(o.label).kind == "strong"
            and parse_label(o.label).name != label.name
            for o in containers
        ):
            rivals.append(hit)
    return [*outer, *rivals]
