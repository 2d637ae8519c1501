"""The vocabulary the extractor matches with, built from the parsed data files.

``attributes.json`` gives the attribute ids, their kinds, the constraint keys each attribute
allows and the synonyms and surface forms the business listed; ``semantic_lexicon.json``
adds how shoppers actually write (colloquial phrasings, abbreviations, measure
words, value patterns such as ``88W`` or ``6.7寸``). Both arrive as plain mappings; this
module only reshapes them into labelled phrase lists.

Labels: ``attr`` is a strong attribute cue, ``~attr`` a weak one (used only when nothing
stronger is found), ``#attr`` a value of that attribute (``5000毫安``); ``key=value`` is a
constraint value. Any label may end in ``@cat1,cat2`` to restrict it to product categories.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from services.core.semantic.normalise import TextNormaliser
from services.core.semantic.scripts import ChineseScripts
from services.core.semantic.spelling import SpellingCorrector
from services.core.semantic.transliteration import (
    PinyinNames,
    Transliterator,
    brand_series_words,
    letter_codes,
    variant_words,
)

UNSUPPORTED = "_unsupported"
#: Label prefix of a value cue typed by a unit that one attribute alone uses in a category.
UNIT_VALUE_MARK = "##"
#: Marks a weak cue that is the unit asked for ("多少瓦时", "in mm"): the unit names the
#: attribute as a stated value's unit does.
UNIT_ASKED_MARK = "^^"
#: An ISO 4217 currency code (CNY, USD): three capitals, as no unit of measure is written.
_CURRENCY_CODE = re.compile(r"[A-Z]{3}")
#: The symbols of the units of time (SI and accepted for use with it).
_TIME_UNITS = frozenset(("s", "min", "h", "d"))
_ANNOTATED = re.compile(r"^(?P<phrase>.+?)\s*[((](?P<note>[^()()]+)[))]\s*$")


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    attribute_id: str
    kind: str  # "spec" | "policy"
    applies_to: frozenset[str]
    constraint_values: Mapping[str, frozenset[str]]

    @property
    def constraint_keys(self) -> frozenset[str]:
        return frozenset(self.constraint_values)

    @property
    def intent(self) -> str:
        return "query_policy" if self.kind == "policy" else "query_spec"


@dataclass(frozen=True, slots=True)
class Label:
    """A parsed hit label."""

    kind: str  # "strong" | "weak" | "value" | "constraint"
    name: str  # attribute id, or constraint key
    value: str  # constraint value ("" for attribute labels)
    categories: frozenset[str]

    def applies_to(self, category: str | None) -> bool:
        return not self.categories or (category is not None and category in self.categories)


@functools.lru_cache(maxsize=8192)
def parse_label(label: str) -> Label:
    """The parsed ``label`` (a pure function of the lexicon's labels, which are few:
    cached, since every hit asks it several times)."""
    body, _, cats = label.partition("@")
    categories = frozenset(c for c in cats.split(",") if c)
    if "=" in body:
        key, _, value = body.partition("=")
        return Label("constraint", key, value, categories)
    if body.startswith("~" + UNIT_ASKED_MARK):
        return Label("weak", body[1 + len(UNIT_ASKED_MARK) :], UNIT_ASKED_MARK, categories)
    if body.startswith("~"):
        return Label("weak", body[1:], "", categories)
    if body.startswith(UNIT_VALUE_MARK):
        # A number in the catalog's own unit for this attribute alone ("171 g").
        return Label("value", body[len(UNIT_VALUE_MARK) :], UNIT_VALUE_MARK, categories)
    if body.startswith("#"):
        return Label("value", body[1:], "", categories)
    return Label("strong", body, "", categories)


#: Written abbreviations of English words in phrases ("incl. the case", "how many hrs").
_ABBREVIATIONS = {
    "including": ("incl", "incl."),
    "included": ("incl", "incl."),
    "hours": ("hrs",),
    "hour": ("hr",),
    "years": ("yrs",),
    "year": ("yr",),
    "minutes": ("mins",),
    # clipped forms written as words of their own (a tech blog)
    "technology": ("tech",),
    "technical": ("tech",),
}
#: British spellings and the American forms a US word list has (neighbour → neighbor,
#: authorised → authorized, centre → center, analyse → analyze, catalogue → catalog,
#: travelling → traveling, licence → license): suffix rules, tried in turn.
_BRITISH_TO_AMERICAN = (
    (re.compile(r"(?<=[a-z])our(?=s?$|ed$|ing$|ite|able|ful|less)"), "or"),
    (re.compile(r"(?<=[a-z]{2})is(?=e$|es$|ed$|ing$|er$|ers$|ation$|ations$)"), "iz"),
    (re.compile(r"(?<=[a-z])ys(?=e$|es$|ed$|ing$)"), "yz"),
    (re.compile(r"(?<=[a-z]{2})tre(?=s?$)"), "ter"),
    (re.compile(r"(?<=[a-z]{2})ogue(?=s?$)"), "og"),
    (re.compile(r"(?<=[aeiou])ll(?=ed$|ing$|er$|ers$)"), "l"),
    (re.compile(r"(?<=[a-z]{2})ence(?=s?$)"), "ense"),
)


def american_spellings(word: str) -> tuple[str, ...]:
    """The American forms of a British spelling of ``word`` (none if it is not one)."""
    forms = []
    for pattern, replacement in _BRITISH_TO_AMERICAN:
        form = pattern.sub(replacement, word, count=1)
        if form != word:
            forms.append(form)
    return tuple(forms)


def standard_forms(word: str) -> tuple[str, ...]:
    """The words ``word`` is another way of writing: its American spellings and, for a
    written abbreviation (yrs, incl), the words it abbreviates."""
    expanded = tuple(full for full, shorts in _ABBREVIATIONS.items() if word in shorts)
    return (*american_spellings(word), *expanded)


#: Written words and the colloquial or dialect ones shoppers write for them (啥 for 什么;
#: 俺, northern dialect, for 我).
COLLOQUIAL = (("什么", "啥"), ("我", "俺"))


def _abbreviated(phrases: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each phrase with a word that shoppers abbreviate, or write colloquially (啥时候
    for 什么时候), written so too."""
    listed = {p for p, _ in phrases}
    out: list[tuple[str, str]] = []
    for phrase, label in phrases:
        forms: list[str] = []
        words = phrase.split(" ")
        for index, word in enumerate(words):
            for short in _ABBREVIATIONS.get(word, ()):
                forms.append(" ".join((*words[:index], short, *words[index + 1 :])))
        forms.extend(phrase.replace(w, c) for w, c in COLLOQUIAL if w in phrase)
        for form in forms:
            if form not in listed:
                listed.add(form)
                out.append((form, label))
    return out


def colloquial_pattern(regex: str) -> str:
    """``regex`` also matching the colloquial forms of the written words it spells."""
    for written, spoken in COLLOQUIAL:
        regex = regex.replace(written, f"(?:{written}|{spoken})")
    return regex


def _negated_participles(phrases: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """For a key whose values are a state and its negation by name (opened / unopened),
    the English participle of one value negated by "un" names the other: "sealed" is
    unopened, so "unsealed" is opened. Forms already listed are left as they are."""
    values: dict[str, set[str]] = {}
    for _, raw in phrases:
        label = parse_label(raw)
        if label.kind == "constraint":
            values.setdefault(label.name, set()).add(label.value)
    other: dict[tuple[str, str], str] = {}
    for key, names in values.items():
        for name in names:
            if name.startswith("un") and name[2:] in names:
                other[(key, name)] = name[2:]
                other[(key, name[2:])] = name
    listed = {p for p, _ in phrases}
    out: list[tuple[str, str]] = []
    for phrase, raw in phrases:
        label = parse_label(raw)
        opposite = other.get((label.name, label.value))
        if (
            opposite is None
            or not re.fullmatch(r"[a-z]+ed", phrase)
            or phrase.startswith("un")
            or f"un{phrase}" in listed
        ):
            continue
        cats = sorted(label.categories)
        out.append((f"un{phrase}", _with_categories(f"{label.name}={opposite}", cats)))
    return out


def _with_categories(label: str, categories: Iterable[str]) -> str:
    cats = sorted(set(categories))
    return f"{label}@{','.join(cats)}" if cats else label


@dataclass(frozen=True, slots=True)
class SlotLexicon:
    """Everything the slot matchers need, as labelled phrases and patterns."""

    attributes: Mapping[str, AttributeSpec]
    attribute_phrases: tuple[tuple[str, str], ...]
    attribute_patterns: tuple[tuple[str, str], ...]
    constraint_phrases: tuple[tuple[str, str], ...]
    constraint_patterns: tuple[tuple[str, str], ...]
    constraint_hints: tuple[tuple[str, str], ...]
    dominance: Mapping[str, frozenset[str]]
    brands: Mapping[str, tuple[str, ...]]
    name_synonyms: tuple[tuple[str, ...], ...]
    filler_tokens: tuple[str, ...]
    series_words: tuple[str, ...]
    droppable_name_words: tuple[str, ...]
    category_words: Mapping[str, str]
    negations: tuple[str, ...]
    variant_nicknames: Mapping[str, tuple[str, ...]]
    store_variants: Mapping[str, frozenset[str]]
    normaliser: TextNormaliser

    @classmethod
    def build(
        cls,
        attributes_doc: Mapping[str, Any],
        lexicon_doc: Mapping[str, Any],
        store_policies: Mapping[str, Any],
        extra_words: Iterable[str] = (),
        name_words: Iterable[str] = (),
        common_words: Mapping[str, int] | None = None,
        english_words: Mapping[str, int] | None = None,
        spec_units: Mapping[str, Mapping[str, frozenset[str]]] | None = None,
        spec_values: Mapping[str, Mapping[str, frozenset[str]]] | None = None,
        variant_suffixes: Iterable[str] = (),
    ) -> SlotLexicon:
        brands = {
            str(b): tuple(str(w) for w in ws) for b, ws in lexicon_doc.get("brands", {}).items()
        }
        name_words = tuple(name_words)
        series_words = (
            *(str(w) for w in lexicon_doc.get("series_words", ())),
            *numbered_synonyms(name_words, lexicon_doc.get("name_synonyms", ())),
        )
        raw = (*_raw_phrases(attributes_doc, lexicon_doc), *extra_words)
        spelling = SpellingCorrector(
            (*raw, *(str(k) for k in lexicon_doc.get("category_words", {}))),
            (
                *name_words,
                *series_words,
                *(w for ws in brands.values() for w in ws),
                *(str(w) for g in lexicon_doc.get("name_synonyms", ()) for w in g),
            ),
            common_words,
            english_words,
            toneless_words=[
                str(form).split("(")[0]
                for attr in attributes_doc.get("attributes", {}).values()
                for form in attr.get("synonyms", {}).get("zh", ())
            ],
        )
        # Brand and name words that start with a numeral (三星, 一加) are words, also
        # after a Latin word ("my new 三星S24").
        protected = (*raw, *name_words, *(w for ws in brands.values() for w in ws))
        # 普罗 after a model number is the Pro of the catalog's names, as it sounds.
        # 麦特 between 华为 and 60 is the Mate of the brand's names, as it sounds.
        by_brand = brand_series_words(
            {
                brand: [n for n in name_words if n.lower().startswith(tuple(words))]
                for brand, words in brands.items()
            }
        )
        # The policy's variant words the catalog does not sell (plus, mini) sound out too:
        # 苹果15普拉斯 is an iPhone 15 Plus, another model, never the iPhone 15.
        transliterator = Transliterator(
            (*variant_words(name_words), *variant_suffixes),
            common_words or {},
            {word: by_brand[brand] for brand, words in brands.items() for word in words},
            raw,
            {
                str(k): str(v[0])
                for k, v in lexicon_doc.get("variant_nicknames", {}).items()
                if len(v) == 1
            },
            units=[str(form) for forms in lexicon_doc.get("units", {}).values() for form in forms],
            codes=letter_codes(name_words)[0],
            lone_codes=letter_codes(name_words)[1],
            names=name_words,
        )
        normaliser = TextNormaliser(
            series_words,
            protected,
            spelling,
            transliterator,
            spoken_number_heads(name_words, lexicon_doc.get("name_synonyms", ())),
            name_words,
            # biyadi han, xiao mi 14: the catalog's Chinese names spelt in pinyin, and
            # the vocabulary's Chinese name synonyms (aifeng: 爱疯, a name of the iPhone)
            PinyinNames(
                (
                    *name_words,
                    *(
                        str(w)
                        for group in lexicon_doc.get("name_synonyms", ())
                        for w in group
                        if _is_cjk(str(w))
                    ),
                ),
                (w for ws in brands.values() for w in ws),
                english_words or {},
                raw,
            ),
            (str(k) for k in lexicon_doc.get("variant_nicknames", {})),
            # Measures, not money or time: a currency's words (元, 块, 万) follow
            # numerals of ordinary words too (一块儿), and a count of time (一小时后) is
            # the asker's or a policy's period more often than a spec's value.
            (
                str(w)
                for unit, words in lexicon_doc.get("units", {}).items()
                if not _CURRENCY_CODE.fullmatch(str(unit)) and str(unit) not in _TIME_UNITS
                for w in words
            ),
            ChineseScripts(
                {str(k): str(v) for k, v in lexicon_doc.get("regional_words", {}).items()}
            ),
            letter_codes=letter_codes(name_words),
        )
        norm = normaliser.normalise
        category_words = {str(k): str(v) for k, v in lexicon_doc.get("category_words", {}).items()}

        def split_annotation(phrase: str) -> tuple[str, tuple[str, ...]]:
            match = _ANNOTATED.match(phrase)
            if match and match.group("note") in category_words:
                return match.group("phrase"), (category_words[match.group("note")],)
            return phrase, ()

        specs: dict[str, AttributeSpec] = {}
        phrases: list[tuple[str, str]] = []
        patterns: list[tuple[str, str]] = []
        for attr_id, raw in attributes_doc.get("attributes", {}).items():
            specs[attr_id] = AttributeSpec(
                attribute_id=attr_id,
                kind=str(raw.get("kind", "spec")),
                applies_to=frozenset(raw.get("applies_to", ())),
                constraint_values={
                    str(k): frozenset(str(v) for v in vs)
                    for k, vs in raw.get("constraints", {}).items()
                },
            )
            for language_forms in raw.get("synonyms", {}).values():
                for form in language_forms:
                    phrase, cats = split_annotation(str(form))
                    phrases.append((norm(phrase), _with_categories(attr_id, cats)))
        for attr_id, raw in lexicon_doc.get("attributes", {}).items():
            for form in raw.get("phrases", ()):
                phrases.append((norm(str(form)), attr_id))
            for form in raw.get("weak_phrases", ()):
                phrases.append((norm(str(form)), f"~{attr_id}"))
            for entry in raw.get("patterns", ()):
                regex, cats = _pattern_entry(entry)
                patterns.append((regex, _with_categories(attr_id, cats)))
            for entry in raw.get("value_patterns", ()):
                regex, cats = _pattern_entry(entry)
                patterns.append((regex, _with_categories(f"#{attr_id}", cats)))

        patterns.extend(
            _unit_patterns(
                spec_units or {},
                lexicon_doc.get("units", {}),
                normaliser,
                _value_letters(attributes_doc, norm),
            )
        )
        c_phrases: list[tuple[str, str]] = []
        value_phrases = _value_phrases(
            spec_values or {},
            norm,
            lambda text: _is_common(text, common_words or {}, english_words or {}),
            {
                *(p for p, _ in phrases),
                *(norm(str(w)) for w in category_words),
                *(norm(str(w)) for ws in brands.values() for w in ws),
                *(norm(str(n)) for n in name_words),
            },
        )
        c_patterns: list[tuple[str, str]] = []
        hints: list[tuple[str, str]] = []
        for key, values in attributes_doc.get("constraint_values", {}).items():
            for value, forms_by_language in values.items():
                for forms in forms_by_language.values():
                    for form in forms:
                        phrase, cats = split_annotation(str(form))
                        c_phrases.append((norm(phrase), _with_categories(f"{key}={value}", cats)))
        for key, raw in lexicon_doc.get("constraints", {}).items():
            for value, groups in raw.get("values", {}).items():
                for group in groups:
                    label = _with_categories(f"{key}={value}", group.get("categories", ()))
                    c_phrases.extend((norm(str(p)), label) for p in group.get("phrases", ()))
            for value, regexes in raw.get("patterns", {}).items():
                c_patterns.extend((str(r), f"{key}={value}") for r in regexes)
            hints.extend((str(r), key) for r in raw.get("hints", ()))

        c_phrases.extend(_negated_participles(c_phrases))
        phrases.extend(_abbreviated(phrases))
        c_phrases.extend(_abbreviated(c_phrases))
        known_constraints = {p for p, _ in c_phrases}
        phrases.extend((p, label) for p, label in value_phrases if p not in known_constraints)
        dominance = {
            str(a): frozenset(str(b) for b in bs)
            for a, bs in lexicon_doc.get("dominance", {}).items()
        }
        store_variants = {
            attr: frozenset(k for k in text if isinstance(text, Mapping))
            for attr, text in store_policies.items()
            if isinstance(text, Mapping)
        }
        return cls(
            attributes=specs,
            attribute_phrases=tuple(phrases),
            attribute_patterns=tuple((colloquial_pattern(r), label) for r, label in patterns),
            constraint_phrases=tuple(c_phrases),
            constraint_patterns=tuple((colloquial_pattern(r), label) for r, label in c_patterns),
            constraint_hints=tuple(hints),
            dominance=dominance,
            brands=brands,
            name_synonyms=tuple(
                tuple(str(p) for p in group) for group in lexicon_doc.get("name_synonyms", ())
            ),
            filler_tokens=tuple(str(t) for t in lexicon_doc.get("filler_tokens", ())),
            series_words=series_words,
            droppable_name_words=tuple(str(w) for w in lexicon_doc.get("droppable_name_words", ())),
            category_words=category_words,
            negations=tuple(norm(str(n)) for n in lexicon_doc.get("negations", ())),
            variant_nicknames={
                str(k): tuple(str(a) for a in v)
                for k, v in lexicon_doc.get("variant_nicknames", {}).items()
            },
            store_variants=store_variants,
            normaliser=normaliser,
        )

    def all_phrases(self) -> Sequence[str]:
        """Every literal phrase, to prime the word segmenter."""
        return [p for p, _ in (*self.attribute_phrases, *self.constraint_phrases)]


def _value_letters(
    attributes_doc: Mapping[str, Any], norm: Callable[[str], str]
) -> dict[str, set[str]]:
    """Letter → the attributes that are also a constraint key one of whose value forms is
    a number and that letter (256g: storage): "多少g" may ask for those too."""
    ids = {str(a) for a in attributes_doc.get("attributes", {})}
    out: dict[str, set[str]] = {}
    for key, values in attributes_doc.get("constraint_values", {}).items():
        if key not in ids:
            continue
        for forms_by_language in values.values():
            for forms in forms_by_language.values():
                for form in forms:
                    match = re.search(r"\d\s*([a-z])$", norm(str(form)))
                    if match:
                        out.setdefault(match.group(1), set()).add(str(key))
    return out


def _unit_patterns(
    spec_units: Mapping[str, Mapping[str, frozenset[str]]],
    unit_forms: Mapping[str, Sequence[str]],
    normaliser: TextNormaliser,
    value_letters: Mapping[str, set[str]] | None = None,
) -> list[tuple[str, str]]:
    """Value cues typed by the catalog's own units: "5000毫安" is a battery capacity because
    the catalog gives battery capacities in mAh. ``spec_units``: unit → attribute →
    categories whose specs use it. Within a category, a unit used by two attributes is
    no cue for either."""
    owners: dict[tuple[str, str], set[str]] = {}
    for unit, by_attribute in spec_units.items():
        for attribute, categories in by_attribute.items():
            for category in categories:
                owners.setdefault((unit, category), set()).add(attribute)
    unit_forms = compound_unit_forms(unit_forms)
    out: list[tuple[str, str]] = []
    for unit, by_attribute in sorted(spec_units.items()):
        forms = sorted(
            {normaliser.normalise(str(f)) for f in unit_forms.get(unit, ())} - {""},
            key=lambda f: (-len(f), f),
        )
        if not forms:
            continue
        alternation = "|".join(re.escape(f) for f in forms)
        # Unit first only for Latin words of two letters or more: a Chinese unit character
        # before a number is mostly inside a name (小米 14).
        latin_forms = "|".join(re.escape(f) for f in forms if len(f) >= 2 and f.isascii())
        # "4400多毫安" (an approximate 多 / 来 / 余 before the unit); "120Hz or just 60"
        # (a number coordinated with a value shares its unit); "hrs 36?" (chat puts a
        # unit word before the number that ends the question).
        regex = (
            r"(?<![\d.])\d+(?:\.\d+)?\s*(?:多|来|余)?\s*(?:" + alternation + r")(?![a-z])"
            r"(?:\s*(?:\bor\b|还是|或者|或)\s*(?:(?:just|only|maybe|is it)\s+)?"
            r"\d+(?:\.\d+)?(?![\d.a-z%]))?"
        )
        if latin_forms:
            regex += r"|(?<![a-z])(?:" + latin_forms + r")\s+\d+(?:\.\d+)?(?=\s*(?:[?？]|$))"
        # "厚度多少mm 7.6吗": a number offered right after the unit asked, to be
        # confirmed, is a value in that unit (not for a letter another key's values end
        # in: "多少g 256吗" may be storage).
        confirm_forms = [f for f in forms if f not in (value_letters or {})]
        if confirm_forms:
            regex += (
                r"|(?:多少|几)\s*(?:"
                + "|".join(re.escape(f) for f in confirm_forms)
                + r")(?![a-z])\s*[,，]?\s*\d+(?:\.\d+)?(?![\d.])(?=\s*(?:吗|嘛|么|[?？]|$))"
            )
        # The unit asked for: "多少瓦时", "几寸", "几万公里", "how many watt-hours" (a
        # question word, perhaps with a multiplier, right before the unit; the longer unit
        # wins over a shorter one inside it, and "几万" of "几万公里" is no price).
        # An English measurement asked "in" a unit ("how long is it in mm") likewise.
        asked = (
            r"(?:(?:多少|几|how many|how much)(?:十|百|千|万|十万|百万)?\s*|(?<![a-z])in\s+)(?:"
            + "|".join(re.escape(f) for f in forms if len(f) >= 2 or not f.isascii())
            + r")(?![a-z])"
        )
        # "多少g": a one-letter unit right after a Chinese question word is the unit asked
        # too (a count of grams, not "how much money"); after an English one it is not
        # ("how many g" is rare, "in m" a preposition). A letter that also ends a
        # constraint value (256g) asks for that key's attribute as well: two readings.
        letters = [f for f in forms if len(f) == 1 and f.isascii() and f.isalpha()]
        if letters:
            asked += r"|(?:多少|几)\s*(?:" + "|".join(re.escape(f) for f in letters) + r")(?![a-z])"
            for rival in sorted({k for f in letters for k in (value_letters or {}).get(f, ())}):
                out.append((r"(?:多少|几)\s*(?:" + "|".join(letters) + r")(?![a-z])", f"~{rival}"))
        for attribute, categories in sorted(by_attribute.items()):
            sole = sorted(c for c in categories if owners[(unit, c)] == {attribute})
            if sole:
                out.append((regex, _with_categories(f"{UNIT_VALUE_MARK}{attribute}", sole)))
                if forms:
                    # Weak, like "多少": any phrase naming the attribute (or a constraint
                    # implying one) says more; it only outranks the shorter unit inside.
                    out.append((asked, _with_categories(f"~{UNIT_ASKED_MARK}{attribute}", sole)))
    return out


def _value_phrases(
    spec_values: Mapping[str, Mapping[str, frozenset[str]]],
    norm: Callable[[str], str],
    is_common: Callable[[str], bool],
    known: set[str],
) -> list[tuple[str, str]]:
    """Weak cues from the catalog's own spec texts: "有雅川青吗" asks about colours because
    雅川青 is a colour of a catalog product. ``spec_values``: text → attribute → categories
    whose specs give it. A text the vocabulary already uses (充电盒, a constraint word), a
    common word of either language (黑色, cable: a name is a cue, a word is not), or one
    two attributes share within a category, is no cue."""
    owners: dict[tuple[str, str], set[str]] = {}
    for text, by_attribute in spec_values.items():
        for attribute, categories in by_attribute.items():
            for category in categories:
                owners.setdefault((norm(text), category), set()).add(attribute)
    out: list[tuple[str, str]] = []
    for text, by_attribute in sorted(spec_values.items()):
        phrase = norm(text)
        if phrase in known or is_common(phrase):
            continue
        for attribute, categories in sorted(by_attribute.items()):
            sole = sorted(c for c in categories if owners[(phrase, c)] == {attribute})
            if sole:
                # Weak: any other cue, even "多少", makes it a contest (abstention).
                out.append((phrase, _with_categories(f"~{attribute}", sole)))
    return out


def number_heads(names: Iterable[str]) -> list[str]:
    """Latin words a model number follows in the catalog's names (iphone of "iPhone 15",
    model of "Model 3", series of "Series 9"): the words a spoken number may follow."""
    found: list[str] = []
    for name in names:
        words = name.lower().split()
        for before, word in pairwise(words):
            if word[:1].isdigit() and before.isascii() and before.isalpha() and before not in found:
                found.append(before)
    return found


def spoken_number_heads(names: Iterable[str], groups: Iterable[Sequence[str]]) -> list[str]:
    """The number heads of the names and the Latin name synonyms of each ("i phone" of
    iphone): a number word after either is the model number (i phone sixteen)."""
    heads = number_heads(names)
    synonyms: list[str] = []
    for group in groups:
        words = [str(w).lower() for w in group]
        if any(w in heads for w in words):
            synonyms += [w for w in words if w.isascii() and w not in heads and w not in synonyms]
    return [*heads, *synonyms]


def _is_common(text: str, common: Mapping[str, int], english: Mapping[str, int]) -> bool:
    if text.isascii() and any(ch.isdigit() for ch in text):
        return False  # a model code ("h2", "ip68"), no word of either language
    if text.isascii():
        return all(english.get(w, 0) >= _COMMON_FREQUENCY for w in re.findall(r"[a-z]+", text))
    return common.get(text, 0) >= _COMMON_FREQUENCY


#: As in spelling repair: a word this frequent in the general dictionaries is a word.
_COMMON_FREQUENCY = 50


def numbered_synonyms(names: Iterable[str], groups: Iterable[Sequence[str]]) -> list[str]:
    """Chinese members of a name-synonym group one of whose Latin members a catalog name
    follows with a model number ("iPhone 15"): 爱疯 stands for iphone, so 爱疯十六 is 爱疯16,
    as 苹果十六 is 苹果16; also before a one-letter model code ("Galaxy S24"): 盖乐世 stands
    for galaxy, so 盖乐世二十四 is 盖乐世24, the model number the code's letter is left off."""
    numbered = {
        match.group(1)
        for name in names
        for match in re.finditer(r"([a-z][a-z ]*?)\s*(?:[a-z](?=\d))?\d", str(name).lower())
    }
    return [
        str(word)
        for group in groups
        if any(str(w).lower() in numbered for w in group)
        for word in group
        if _is_cjk(str(word))
    ] + [
        # 毛豆3 stands for "model 3": the Chinese word the vocabulary writes before a
        # model number is a series word, so 毛豆三 is 毛豆3 as 苹果十六 is 苹果16.
        match.group(1)
        for group in groups
        for word in group
        if (match := re.fullmatch(r"([\u4e00-\u9fff]+)\s?\d+", str(word).lower()))
    ]


def compound_unit_forms(unit_forms: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """``unit_forms`` with the spelt-out forms of compound units: a unit whose symbol is
    two known symbols in a row (Wh = W + h, kWh = kW + h) is also written as their word
    forms joined, as English and Chinese write them ("watt-hours", "watt hour", "瓦小时")."""
    out = {unit: list(forms) for unit, forms in unit_forms.items()}
    for unit in unit_forms:
        for cut in range(1, len(unit)):
            head, tail = unit[:cut], unit[cut:]
            if head not in unit_forms or tail not in unit_forms:
                continue
            for first in unit_forms[head]:
                for second in unit_forms[tail]:
                    if _is_word(first) and _is_word(second):
                        out[unit].extend((f"{first}-{second}", f"{first} {second}"))
                    elif _is_cjk(first) and _is_cjk(second):
                        out[unit].append(first + second)
    return out


def _is_word(form: str) -> bool:
    return len(form) >= 3 and form.isascii() and form.isalpha()


def _is_cjk(form: str) -> bool:
    return bool(form) and all("\u3400" <= ch <= "\u9fff" for ch in form)


def _raw_phrases(attributes_doc: Mapping[str, Any], lexicon_doc: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for raw in attributes_doc.get("attributes", {}).values():
        for forms in raw.get("synonyms", {}).values():
            out.extend(str(f) for f in forms)
    for values in attributes_doc.get("constraint_values", {}).values():
        for by_language in values.values():
            for forms in by_language.values():
                out.extend(str(f) for f in forms)
    for raw in lexicon_doc.get("attributes", {}).values():
        out.extend(str(f) for f in (*raw.get("phrases", ()), *raw.get("weak_phrases", ())))
    for raw in lexicon_doc.get("constraints", {}).values():
        for groups in raw.get("values", {}).values():
            for group in groups:
                out.extend(str(f) for f in group.get("phrases", ()))
    return out


def _pattern_entry(entry: Any) -> tuple[str, tuple[str, ...]]:
    if isinstance(entry, Mapping):
        return str(entry["re"]), tuple(str(c) for c in entry.get("categories", ()))
    return str(entry), ()
