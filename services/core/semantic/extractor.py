"""``question → fingerprint``: the composition of the semantic core.

1. normalise (NFKC, case, spelling repair against the vocabulary, Chinese numerals);
2. find products: catalog aliases, unknown models, bare brands;
3. segment with jieba, mask product names (``§``) and unknown ones (``¤``);
4. admission: the policy's bypass intents in precedence order, plus structural evidence
   (two products, two storage sizes, an unknown model);
5. attribute, then constraints, then a last check that every number in the question was
   understood. Anything unsure ends as :class:`NoFingerprint`: a miss, never a wrong hit.

Pure: everything is built at construction from the mappings handed in; ``decide`` does
no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from services.core.semantic.admission import (
    PRODUCT_MASK,
    SET_ASIDE_TESTS,
    UNKNOWN_MASK,
    AdmissionGate,
    AdmissionPolicy,
    CueContext,
    only_present_time,
    ruled_out_clauses,
    topic_ruled_out,
    volatile_attributes,
)
from services.core.semantic.attributes import TOPIC_KEYS, AttributeChoice, AttributeResolver
from services.core.semantic.bounds import Bound, find_bounds
from services.core.semantic.colours import ListedColours
from services.core.semantic.constraints import (
    ConstraintReading,
    ConstraintResolver,
    quantified_variant_spans,
    variant_name_end,
)
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint, SemanticDecision
from services.core.semantic.initials import PinyinInitials, Reading
from services.core.semantic.lexicon import (
    UNIT_VALUE_MARK,
    AttributeSpec,
    SlotLexicon,
    parse_label,
    standard_forms,
)
from services.core.semantic.normalise import TextNormaliser
from services.core.semantic.note_variants import NoteVariants
from services.core.semantic.phrases import Hit, PhraseSet, strip_inside
from services.core.semantic.pinyin_words import PinyinWords
from services.core.semantic.products import (
    CatalogEntry,
    Mention,
    ProductMatcher,
    ProductScan,
    note_editions,
    screen_sizes,
    spec_text,
)
from services.core.semantic.reader import NgramReader, ReaderVerdict
from services.core.semantic.segment import WordSegmenter
from services.core.semantic.spelling import PlainEnglish
from services.core.semantic.transliteration import opens_a_word, vocabulary_openings
from services.core.semantic.versions import LaunchVersions, newer_versions, versioned_attributes


class SemanticExtractor:
    """Decides, for one question, its fingerprint, a bypass, or no fingerprint."""

    def __init__(
        self,
        catalog: Mapping[str, Any],
        attributes: Mapping[str, Any],
        policy: AdmissionPolicy,
        *,
        lexicon: Mapping[str, Any] | None = None,
        store_policies: Mapping[str, Any] | None = None,
        english_words: Mapping[str, int] | None = None,
    ) -> None:
        lexicon_doc: Mapping[str, Any] = lexicon if lexicon is not None else {}
        spec_units = _spec_units(catalog, frozenset(str(u) for u in lexicon_doc.get("units", {})))
        lexicon_forms = {
            str(attr_id): [str(p) for p in raw.get("phrases", ())]
            for attr_id, raw in lexicon_doc.get("attributes", {}).items()
        }
        if store_policies is None:
            # Without the store texts, assume every policy attribute varies by the keys
            # attributes.json allows: finer keys cost hits, never correctness.
            store_policies = {
                attr: {v: "" for vs in raw.get("constraints", {}).values() for v in vs}
                for attr, raw in attributes.get("attributes", {}).items()
                if raw.get("kind") == "policy"
            }
        # "My" invoice or warranty is the asker's own case, by any of the policy's names.
        policy = policy.with_possessed_policies(
            [
                [
                    *(str(w) for ws in raw.get("synonyms", {}).values() for w in ws),
                    *lexicon_forms.get(str(attr_id), ()),
                ]
                for attr_id, raw in attributes.get("attributes", {}).items()
                if raw.get("kind") == "policy"
            ]
        )
        policy_phrases = [p for rule in policy.rules for p in rule.phrases]
        # A catalog note's edition words (焕新版) are words, never a typo of another.
        policy_phrases += [
            w
            for raw in catalog.get("products", ())
            for w in note_editions(str(raw.get("note", "")))
        ]
        catalog_names = [
            str(n)
            for raw in catalog.get("products", ())
            for names in raw.get("names", {}).values()
            for n in names
        ]
        self._segmenter = WordSegmenter()
        self._lexicon = SlotLexicon.build(
            attributes,
            lexicon_doc,
            store_policies,
            policy_phrases,
            catalog_names,
            self._segmenter.general_frequencies,
            english_words,
            spec_units,
            _spec_texts(catalog),
            variant_suffixes=policy.variant_suffixes,
        )
        self._normaliser = self._lexicon.normaliser
        entries = []
        specs: dict[str, Mapping[str, Any]] = {}
        for raw in catalog.get("products", ()):
            names = (*raw.get("names", {}).get("zh", ()), *raw.get("names", {}).get("en", ()))
            names = (*names, *completed_names(names, catalog_names))
            entries.append(
                CatalogEntry(
                    str(raw["id"]),
                    str(raw.get("category", "")),
                    str(raw.get("brand", "")),
                    tuple(names),
                    spec_text(raw.get("specs", {})),
                    note_editions(str(raw.get("note", ""))),
                    screen_sizes(raw.get("specs", {})),
                )
            )
            specs[str(raw["id"])] = MappingProxyType(dict(raw.get("specs", {})))
        self._specs = MappingProxyType(specs)
        # product → its listed text values ("teal" of its colours) → the one attribute
        # listing it; a category word (phone, watch: an in-box item) is no such value.
        categories = {c.lower() for c in (*self._lexicon.category_words.values(),)}
        categories |= {str(w).lower() for w in self._lexicon.category_words}
        self._listed_values = {
            product_id: (words, _listed_value_pattern(words))
            for product_id, product_specs in specs.items()
            if (words := _listed_value_words(product_specs, self._normaliser, categories))
        }
        # Every product's listed texts: one the named product does not list ("red" of
        # another's colours) means the question is not only about its own values.
        every_listed: dict[str, str] = {}
        for words, _ in self._listed_values.values():
            every_listed.update(words)
        self._every_listed = (
            (every_listed, _listed_value_pattern(every_listed)) if every_listed else None
        )
        # product → the year its release date gives: that year after its name is a model
        # year (x1 carbon 2024), part of the name, not a date asked about.
        self._release_years = {
            product_id: year
            for product_id, product_specs in specs.items()
            if (year := _release_year(product_specs.get("release_date"))) is not None
        }
        # product → the generations its names and note give it (Gen 12, 第二代): another
        # generation said after its name is a model the catalog does not list.
        self._named_generations = {
            str(raw["id"]): generations
            for raw in catalog.get("products", ())
            if (generations := _named_generations(raw, self._normaliser))
        }
        # (product, attribute) → the codes its text values write (h2, a18, 4.0): read
        # once here, not for every question that names the product.
        self._value_codes = {
            (product_id, str(attribute)): codes
            for product_id, product_specs in specs.items()
            for attribute, spec in product_specs.items()
            if (codes := _value_codes(spec))[0]
        }
        # Attributes the catalog gives in a currency: a bare number asked to be confirmed
        # ("官方价是6999吗") is their own stated value.
        self._money_attributes = frozenset(
            a for u, by in spec_units.items() if u in _CURRENCIES for a in by
        )
        self._product_keys = _product_varying_keys(specs)
        self._volatile = volatile_attributes(attributes)
        # Specs among them (a price), as opposed to store rules.
        self._changing_specs = frozenset(
            a
            for a in self._volatile
            if attributes.get("attributes", {}).get(a, {}).get("kind") == "spec"
        )
        # The words of each attribute's multi-word phrases: a compare cue among them
        # ("difference") belongs to that attribute when the question asks it otherwise.
        self._phrase_words = MappingProxyType(
            {
                str(attr_id): frozenset(
                    word
                    for phrase in (
                        *raw.get("phrases", ()),
                        *self._vocabulary_forms(attributes, str(attr_id)),
                    )
                    if " " in str(phrase).strip()
                    for word in str(phrase).lower().split()
                )
                for attr_id, raw in lexicon_doc.get("attributes", {}).items()
            }
        )
        # A version above the one a product launched with is a future update (predict).
        versioned = versioned_attributes(attributes)
        self._version_patterns = tuple(
            re.compile(str(pattern))
            for attr_id in sorted(versioned)
            for pattern in lexicon_doc.get("attributes", {})
            .get(attr_id, {})
            .get("value_patterns", ())
        )
        self._launch_versions = {
            product_id: LaunchVersions.of(
                t for attr_id in versioned for t in _spec_texts_of(product_specs.get(attr_id))
            )
            for product_id, product_specs in specs.items()
        }
        # (attribute, key, value) → the categories of the products whose spec offers it.
        value_categories: dict[tuple[str, str, str], set[str]] = {}
        for entry in entries:
            for attr_id, spec in specs[entry.product_id].items():
                if isinstance(spec, Mapping) and isinstance(spec.get("values"), Mapping):
                    for value in spec["values"]:
                        value_categories.setdefault(
                            (attr_id, str(spec.get("by")), str(value)), set()
                        ).add(entry.category)
        self._value_categories = {k: frozenset(v) for k, v in value_categories.items()}
        # (attribute, a number its spec texts and notes write) → the categories writing it:
        # "water resistant to 50 m" is a watch's own value (in context, series 9 is one).
        number_categories: dict[tuple[str, str], set[str]] = {}
        for entry in entries:
            for attr_id, spec in specs[entry.product_id].items():
                for number in _written_numbers(spec):
                    number_categories.setdefault((attr_id, number), set()).add(entry.category)
        self._number_categories = {k: frozenset(v) for k, v in number_categories.items()}
        self._products = ProductMatcher(
            entries,
            normaliser=self._normaliser,
            brand_words=self._lexicon.brands,
            name_synonyms=self._lexicon.name_synonyms,
            other_brand_words=policy.other_brands,
            variant_suffixes=policy.variant_suffixes,
            filler_tokens=self._lexicon.filler_tokens,
            droppable_words=self._lexicon.droppable_name_words,
            suffix_exceptions=self._lexicon.all_phrases(),
            adjective_suffixes=policy.adjective_suffixes,
            category_words=self._lexicon.category_words,
            variant_nicknames=self._lexicon.variant_nicknames,
            feature_words={
                str(k): [str(f) for f in v] for k, v in lexicon_doc.get("feature_words", {}).items()
            },
            non_name_patterns=[
                p for p, label in self._lexicon.attribute_patterns if label.startswith("#")
            ],
            # Chinese words of a variant's configuration (顶配): hints of a constraint key
            configuration_words=[
                r for r, _ in self._lexicon.constraint_hints if _CJK_ONLY.fullmatch(r)
            ],
            value_initials=_value_initials(specs),
            # units of measure as shoppers write them (毫米), no money and no size word
            measure_words=[
                str(form)
                for unit, forms in lexicon_doc.get("units", {}).items()
                if unit not in _CURRENCIES and unit.lower() != "inch"
                for form in forms
            ],
        )
        # "苹果15那个plus版本", "the Xiaomi 14, the ultra edition": a variant word with an
        # edition head, apart from the name; of another variant than the name's, it is
        # another model (or none), not the product named.
        detached = sorted(
            (w for w in self._products.variant_words if w.isascii() and len(w) >= 2),
            key=len,
            reverse=True,
        )
        self._detached_variant = re.compile(
            rf"(?<![a-z0-9])({'|'.join(map(re.escape, detached))})\s*"
            r"(?:版本|版|款|versions?|editions?|models?|one)(?![a-z])"
            if detached
            else r"(?!)"
        )
        # "大杯的16 Pro，也就是Pro Max": variant words put in apposition to the name (也就是,
        # "aka", "i.e."), apart from it, rename the model the question is about.
        variant_run = "|".join(map(re.escape, detached))
        self._appositive_variant = re.compile(
            rf"(?:也就是|也叫|又叫|俗称|(?<![a-z])(?:aka|a\.k\.a\.?|i\.e\.?)(?:\s+the)?)\s*"
            rf"((?:{variant_run})(?:\s+(?:{variant_run}))*)(?![a-z0-9])"
            if detached
            else r"(?!)"
        )
        # Words of a product's whole catalog entry (names, values, notes): the editions it has.
        self._spec_words = {
            str(raw.get("id")): frozenset(
                re.findall(r"[a-zà-ÿ]+", " ".join(_strings_in(raw)).lower())
            )
            for raw in catalog.get("products", ())
            if isinstance(raw, Mapping)
        }
        # Screen sizes by product, whole inches: "苹果16寸" names a size, not the iPhone 16.
        self._whole_inches = {
            e.product_id: frozenset(str(int(float(size))) for size in e.screen_sizes)
            for e in entries
        }
        self._name_words = {
            e.product_id: frozenset(w for n in e.names for w in re.findall(r"[a-z]+", n.lower()))
            for e in entries
        }
        # The word a catalog name opens its series with, after the brand (iphone, galaxy,
        # macbook, mate): said with no model it names a product we cannot tell.
        brand_words = {w.lower() for ws in self._lexicon.brands.values() for w in ws}
        self._series_heads = frozenset(
            head
            for e in entries
            for n in e.names
            if n[:1].isalpha()
            for head in [_series_head(n, brand_words | {e.brand.lower()})]
            if len(head) >= 4
            and head not in self._lexicon.droppable_name_words
            # "the watch": a category's word names no series
            and head not in self._lexicon.category_words
            and head not in self._lexicon.category_words.values()
        )
        # Numbers a bare bound could stand for other than a value: a model number of the
        # catalog's names (15, 60) or a variant's (128 of 128GB, 45 of 45mm).
        self._naming_numbers = frozenset(
            {float(n) for e in entries for name in e.names for n in re.findall(r"\d+", name)}
            | {
                float(n)
                for product_specs in specs.values()
                for spec in product_specs.values()
                if isinstance(spec, Mapping) and isinstance(spec.get("values"), Mapping)
                for value in spec["values"]
                for n in re.findall(r"\d+(?:\.\d+)?", str(value))
            }
        )
        self._other_brands = PhraseSet(
            (self._normaliser.normalise(b), "other") for b in policy.other_brands
        )
        self._accessories = PhraseSet(
            (self._normaliser.normalise(w), "accessory") for w in policy.accessory_words
        )
        self._gate = AdmissionGate(policy)
        # Words both the attribute vocabulary and a bypass intent list ("promotion": the
        # display feature and a sales promotion).
        self._bypass_attribute_words = frozenset(p.lower() for p in policy_phrases) & frozenset(
            p for p, label in self._lexicon.attribute_phrases if label[:1] not in "~#"
        )
        self._attributes = AttributeResolver(self._lexicon)
        self._constraints = ConstraintResolver(self._lexicon)
        # Constraint forms become words ("长续航版"), so a short cue inside them does not
        # count; attribute phrases do not, so "快充多少" still yields "快充".
        user_words = [
            *(p for p, _ in self._lexicon.constraint_phrases),
            *(self._normaliser.normalise(n) for e in entries for n in e.names),
            *(w for ws in self._lexicon.brands.values() for w in ws),
            *policy.other_brands,
        ]
        self._segmenter.add_words(w for w in user_words if not w.isascii())
        self._english = english_words or {}
        # Variant nicknames of two characters or more (超大杯, 专业版): one the product's
        # name did not take stands apart from it, naming a variant the name does not.
        self._stray_nicknames = PhraseSet(
            (str(k), "variant")
            for k in lexicon_doc.get("variant_nicknames", {})
            if len(str(k)) >= 2 and not str(k).isascii()
        )
        # The variant words a written name may carry (pro, ultra, plus): a name that
        # says its variant outranks a loose nickname beside it (三星大杯s24ultra).
        self._variant_in_name = re.compile(
            "|".join(
                rf"(?<![a-z]){re.escape(v)}(?![a-z])"
                for v in sorted(
                    {*policy.variant_suffixes, *policy.adjective_suffixes},
                    key=len,
                    reverse=True,
                )
                if len(v) >= 2 and v.isascii() and v.isalpha()
            )
        )
        # Chat abbreviations and courtesy words (pls, thx) say nothing about the question:
        # never "a word not understood".
        self._chat_words = frozenset(
            str(w).lower() for w in lexicon_doc.get("chat_words", ()) if str(w).isascii()
        )
        self._openings = vocabulary_openings(
            (*self._lexicon.all_phrases(), *user_words, *policy_phrases)
        )
        self._known_words = frozenset(
            w
            for phrase in (*self._lexicon.all_phrases(), *user_words, *policy_phrases)
            for w in (phrase, *phrase.split())
        ) | _catalog_text_words(catalog)
        self._brand_of = {e.product_id: e.brand for e in entries}
        # Words that speak of a device: its brand, a category word, a catalog name word.
        self._device_words = re.compile(
            "|".join(
                sorted(
                    {
                        *(re.escape(w.lower()) for ws in self._lexicon.brands.values() for w in ws),
                        *(re.escape(w) for w in self._lexicon.category_words),
                        *(
                            rf"(?<![a-z]){w}(?![a-z])"
                            for n in catalog_names
                            for w in re.findall(r"[a-z]{3,}", n.lower())
                        ),
                    }
                )
            )
        )
        # Words that carry meaning here: name words (the catalog's, its synonyms', the
        # variants and brands it does not sell) and constraint values' words: a compound
        # or typo near one may hide a variant (promx, plues).
        self._plain_english = PlainEnglish(
            self._english,
            (
                *(w for n in catalog_names for w in re.findall(r"[a-z]+", n.lower())),
                *(w for p, _ in self._lexicon.constraint_phrases for w in re.findall(r"[a-z]+", p)),
                *(w for ws in self._lexicon.brands.values() for w in ws),
                # the variants and brands the store does not sell (plus, mini, oppo)
                *(
                    w
                    for v in (*policy.variant_suffixes, *policy.other_brands)
                    for w in re.findall(r"[a-z]+", str(v).lower())
                ),
                *(
                    w
                    for g in self._lexicon.name_synonyms
                    for n in g
                    for w in re.findall(r"[a-z]+", n)
                ),
            ),
        )
        self._listed_colours = ListedColours(
            {
                str(hue): [str(w) for w in words]
                for hue, words in lexicon_doc.get("colour_hues", {}).items()
            },
            specs,
            [str(w) for w in lexicon_doc.get("hueless_words", [])],
        )
        self._note_variants = NoteVariants(
            {
                str(kind): [[str(f) for f in forms] for forms in variants]
                for kind, variants in lexicon_doc.get("variant_families", {}).items()
            },
            {str(raw["id"]): str(raw.get("note", "")) for raw in catalog.get("products", ())},
        )
        # Pinyin initials of the Chinese vocabulary (sx 三星, zfb 支付宝, kf 客服): the
        # lexicon's Chinese chat words are among them, so typed as initials they read as
        # the chat they are.
        self._initials = PinyinInitials(
            (
                *self._lexicon.all_phrases(),
                *self._lexicon.series_words,
                *user_words,
                *policy_phrases,
                *(str(w) for w in lexicon_doc.get("chat_words", ())),
            ),
            self._lexicon.brands,
            lambda token: (
                token in self._known_words or token in self._english or token in self._chat_words
            ),
        )
        # The same vocabulary typed in full pinyin (xuhang 续航, duoshao qian 多少钱), and
        # the units (gongli 公里).
        self._pinyin_words = PinyinWords(
            (
                *self._lexicon.all_phrases(),
                *user_words,
                *policy_phrases,
                *(str(w) for w in lexicon_doc.get("chat_words", ())),
                *(str(f) for forms in lexicon_doc.get("units", {}).values() for f in forms),
                # the words inside the vocabulary's phrases (支持 of 支持快充)
                *(
                    w
                    for p in {*self._lexicon.all_phrases(), *policy_phrases}
                    if not p.isascii()
                    for w in self._segmenter.words(p)
                    if len(w) >= 2
                ),
            ),
            lambda spelling: (
                spelling in self._known_words
                or spelling in self._english
                or spelling in self._chat_words
            ),
        )
        # The catalog's units are attribute words too ("多少毫安", "几寸").
        unit_words: dict[str, list[str]] = {}
        unit_forms = lexicon_doc.get("units", {})
        for unit, by_attribute in spec_units.items():
            for attr_id in by_attribute:
                forms = [str(f) for f in unit_forms.get(unit, ())]
                unit_words.setdefault(attr_id, []).extend(f for f in forms if len(f) >= 2)
                # A number with the unit ("0" stands for any number in the reader).
                unit_words[attr_id].extend(f"0{f}" for f in forms)
        # Text values that are a number and a unit ("128GB", "1TB" of storage): the unit
        # after a number asks about that attribute too ("有1TB的吗").
        for attr_id, units in _value_text_units(catalog).items():
            unit_words.setdefault(attr_id, []).extend(f"0{u}" for u in sorted(units))
        # A catalog unit the lexicon lists no forms for ("day" of a watch's battery life)
        # is written by its own name: "how many days" asks for it.
        for unit, by_attribute in spec_units.items():
            if unit in unit_forms or not unit.isalpha() or len(unit) < 2:
                continue
            for attr_id in by_attribute:
                names = (unit.lower(), f"{unit.lower()}s")
                unit_words.setdefault(attr_id, []).extend((*names, *(f"0 {n}" for n in names)))
        # Units the catalog's notes state after a number for an attribute ("4 years or
        # 80,000 km" of a car's warranty): "多少公里" may ask about that attribute too.
        for unit, attr_ids in _noted_units(catalog, frozenset(unit_forms)).items():
            for attr_id in attr_ids:
                forms = [str(f) for f in unit_forms.get(unit, ())]
                unit_words.setdefault(attr_id, []).extend(
                    (*(f for f in forms if len(f) >= 2), *(f"0{f}" for f in forms))
                )
        value_texts = _spec_value_texts(catalog)
        # A value of a key that names what is asked, and that one attribute alone allows
        # (长焦 → camera, 电池质保 → warranty, 拆封 → returns), is also that attribute's
        # word to the reader, as it is to the rules.
        # Such a word that contains a word of its attribute (电池质保, "battery warranty")
        # is not spread over the other attributes' examples: there it would make the
        # attribute's own word (质保, warranty) a sign of every attribute.
        topic_forms: dict[str, list[str]] = {}
        own_words = {
            attr_id: [
                f.lower()
                for f in (
                    *self._vocabulary_forms(attributes, attr_id),
                    *lexicon_forms.get(attr_id, ()),
                )
                if len(f) >= 2
            ]
            for attr_id in self._lexicon.attributes
        }
        spread_forms: set[str] = set()
        for phrase, raw_label in self._lexicon.constraint_phrases:
            owner = self._attributes.topic_of(parse_label(raw_label).name)
            if owner is not None:
                topic_forms.setdefault(owner, []).append(phrase)
                if any(_contains_word(phrase, w) for w in own_words.get(owner, ())):
                    continue
            spread_forms.add(phrase)
        self._reader = NgramReader(
            [(e.product_id, e.category, e.brand, e.names) for e in entries],
            {
                attr_id: (
                    spec.applies_to,
                    (
                        *self._vocabulary_forms(attributes, attr_id),
                        *lexicon_forms.get(attr_id, ()),
                        *unit_words.get(attr_id, ()),
                        # The catalog's own values ("A18", "IP68", "Snapdragon 8 Gen 3"):
                        # a value asked to be confirmed names its attribute.
                        *value_texts.get(attr_id, ()),
                    ),
                )
                for attr_id, spec in self._lexicon.attributes.items()
            },
            sorted(spread_forms),
            # Brand words are synonyms to the reader too (比亚迪汉 / 迪子汉).
            [*self._lexicon.name_synonyms, *self._lexicon.brands.values()],
            [
                (label.name, label.value, phrase)
                for phrase, raw_label in self._lexicon.constraint_phrases
                if (label := parse_label(raw_label)).kind == "constraint"
            ],
            brand_words=self._lexicon.brands,
            category_words=self._lexicon.category_words,
            implied_forms=topic_forms,
        )

    @staticmethod
    def _vocabulary_forms(attributes: Mapping[str, Any], attr_id: str) -> list[str]:
        raw = attributes.get("attributes", {}).get(attr_id, {})
        return [
            str(form).split("(")[0].strip()
            for forms in raw.get("synonyms", {}).values()
            for form in forms
        ]

    @property
    def normaliser(self) -> TextNormaliser:
        return self._normaliser

    @property
    def reader(self) -> NgramReader:
        return self._reader

    def decide(self, text: str, *, second_reader: bool = True) -> SemanticDecision:
        """The decision; with ``second_reader`` a fingerprint stands only if the n-gram
        reader agrees on product and attribute (otherwise no fingerprint)."""
        decision = self._decide_text(text, second_reader)
        if isinstance(decision, NoFingerprint):
            # Only a question not understood as typed is read again with its pinyin
            # initials (kf, sx) as words: what reads already never changes.
            readings = self._initials.readings(text)
            if readings:
                decision = self._decide_initials(readings, decision, second_reader)
        if isinstance(decision, NoFingerprint):
            # ... and so with its vocabulary words typed in pinyin (xuhang 续航)
            reading = self._pinyin_words.reading(text)
            if reading is not None:
                read = self._decide_text(reading, second_reader)
                if not isinstance(read, NoFingerprint):
                    return read
        return decision

    def _decide_initials(
        self, readings: Sequence[Reading], typed: NoFingerprint, second_reader: bool
    ) -> SemanticDecision:
        """The decision every reading of a question's initials tokens agrees on (one
        fingerprint, or bypasses only); readings that disagree abstain. A brand word read
        must name the brand of a product read right beside it (sx s24: 三星 s24), or its
        reading is dropped; one that stands outranks the readings left without a decision
        (色系 of sx)."""
        decided: list[SemanticDecision] = []
        branded = False
        for reading in readings:
            decision = self._decide_text(reading.text, second_reader)
            if reading.brands:
                if not (
                    isinstance(decision, Fingerprint)
                    and self._brand_beside(reading.text, reading.brands, decision.product)
                ):
                    continue  # a brand word without its model beside it reads nothing
                branded = True
            decided.append(decision)
        if branded:
            decided = [d for d in decided if not isinstance(d, NoFingerprint)]
        if decided and all(isinstance(d, Bypass) for d in decided):
            return decided[0]
        cids = {d.cid if isinstance(d, Fingerprint) else "" for d in decided}
        return decided[0] if len(cids) == 1 and "" not in cids else typed

    def _brand_beside(
        self, text: str, brands: Sequence[tuple[str, str]], product: str | None
    ) -> bool:
        """Whether each brand word read is of ``product``'s brand and begins or sits in a
        mention of that product."""
        if product is None:
            return False
        norm = self._normaliser.normalise(text)
        mentions = [m for m in self._products.scan(norm).products if m.product_id == product]
        for word, brand in brands:
            if self._brand_of.get(product) != brand:
                return False
            spots = [m.start() for m in re.finditer(re.escape(word), norm)]
            if not any(
                m.start <= spot < m.end or 0 <= m.start - (spot + len(word)) <= 1
                for m in mentions
                for spot in spots
            ):
                return False
        return True

    def _decide_text(self, text: str, second_reader: bool) -> SemanticDecision:
        # Normalised once: it is the costliest step (spelling and transliteration scans).
        normalised = self._normaliser.normalise(text)
        if "(" in normalised:
            normalised = self._with_bracketed_families(normalised)
        norm, scanned = self._products.expanded(normalised)
        decision, derived, by_unit, value_nouns, context = self._decide_rules(text, norm, scanned)
        if second_reader and isinstance(decision, Fingerprint):
            reader_norm = _blank_spans(norm, value_nouns, " ")
            fingerprint = decision

            def read(text_read: str) -> ReaderVerdict:
                return self._reader.read(
                    _with_listed(text_read, context),
                    fingerprint.product,
                    fingerprint.attribute,
                    family_only=derived,
                    attribute_settled=by_unit,
                )

            verdict = read(reader_norm)
            if not verdict.agrees:
                asking = self._asking_clauses(reader_norm, verdict.attribute)
                if asking is not None:
                    # "Hello, our team is planning a trip. What…": the reader weighs
                    # every n-gram, so the asker's situation told around the question
                    # drowns it; it reads again the clauses that name a product or an
                    # attribute, the ones the rules read the question from.
                    verdict = read(asking)
            if not verdict.agrees:
                # "I'm not asking about my own phone — what chip …": the words the asker
                # rules out are no part of the question the reader weighs.
                aside = ruled_out_clauses(reader_norm)
                if aside:
                    verdict = read(_blank_spans(reader_norm, aside, " "))
            if not verdict.agrees:
                return NoFingerprint(
                    f"second reader disagrees ({verdict.product}, {verdict.attribute})"
                )
            for key, offered in self._open_keys(decision).items():
                # Only a value this product offers can be one the rules missed (快充 echoes
                # a car's DC charging, which no phone has).
                if self._reader.echoed_values(norm, key) & offered:
                    return NoFingerprint(f"second reader sees a {key} the rules did not read")
        return decision

    def _asking_clauses(self, norm: str, vetoing: str | None) -> str | None:
        """``norm`` with its clauses blanked that name no product (of the catalog or
        not, nor a brand), no word of the attribute vocabulary and ask nothing (no
        question word or mark): the greeting and the asker's situation around the clause
        that asks ("Hi, we're moving house next month."). None when there is no such
        clause, none is left, or a word of the question names ``vetoing``, the attribute
        the reader reads instead: then its reading rests on that word, not on the
        situation told."""
        clauses = _clauses(norm)
        if len(clauses) < 2:
            return None
        words = self._attributes.find(norm, self._segmenter.boundaries(norm))
        if any(parse_label(h.label).name == vetoing for h in words):
            return None
        named = [*self._products.scan(norm).spans(), *((h.start, h.end) for h in words)]
        aside = [
            (start, end)
            for start, end in clauses
            if not any(start < e and s < end for s, e in named)
            and _QUESTION_WORD.search(norm, start, end) is None
            and norm[end : end + 1] not in {"?", "？"}
        ]
        if not aside or len(aside) == len(clauses):
            return None
        return _blank_spans(norm, aside, " ")

    def _with_bracketed_families(self, norm: str) -> str:
        """``norm`` with a variant written before its family in brackets ("the pro max
        (iphone 15)") put back in name order ("iphone 15 pro max"), when the words read
        whole as one product that is not the bracketed family itself."""
        for match in reversed(list(_BRACKETED_FAMILY.finditer(norm))):
            family = match.group(2).strip()
            alone = self._products.scan(family).product_ids
            words = match.group(1).split()
            for size in range(min(len(words), 3), 0, -1):
                name = f"{family} {' '.join(words[-size:])}"
                named = self._products.scan(name)
                mentions = [*named.products, *named.unknown]
                # A variant the store does not sell ("the plus (iphone 15)") reads as one too.
                if (
                    len(mentions) == 1
                    and mentions[0].start == 0
                    and mentions[0].end == len(name)
                    and (mentions[0].product_id is None or (mentions[0].product_id,) != alone)
                ):
                    start = match.end(1) - len(" ".join(words[-size:]))
                    norm = f"{norm[:start]}{name}{norm[match.end() :]}"
                    break
        return norm

    def _first_meant_bypass(
        self,
        gate_text: str,
        boundaries: frozenset[int],
        structural: Mapping[str, str],
        attribute_words: Callable[[], list[Hit]],
        bounds: Sequence[Bound] = (),
    ) -> tuple[str, str] | None:
        """The gate's first bypass whose cues the question means: an intent whose every
        cue passes its set-aside test (``SET_ASIDE_TESTS``) is skipped and the gate asked
        again, until one is meant or none is left."""
        worded = attribute_words()
        context = CueContext(
            gate_text,
            [h for h in worded if parse_label(h.label).kind == "strong"],
            lambda: frozenset(self._segmenter.degree_adverbs(gate_text)),
            self._phrase_words,
            worded,
            boundaries,
            self._changing_specs,
            tuple((b.start, b.end) for b in bounds if self._bounds_a_value(b, gate_text, worded)),
        )
        skip: set[str] = set()
        while True:
            bypass = self._gate.first_bypass(gate_text, boundaries, structural, frozenset(skip))
            if bypass is None or bypass[0] in structural:
                return bypass
            test = SET_ASIDE_TESTS.get(bypass[0])
            if test is None or not test(self._gate.hits(bypass[0], gate_text, boundaries), context):
                return bypass
            skip.add(bypass[0])

    def _bounds(
        self, masked: str, reading: ConstraintReading, attribute_words: Callable[[], list[Hit]]
    ) -> list[Bound]:
        """The bounds of ``masked`` that limit a value: none on a variant's number (超过256G
        names storage sizes), and 过 only right after an attribute word (官方价过9000). With
        a word of buying or a budget (5000以下能买到吗, "can I get it under 6000"), the
        number is what the asker would pay, a deal or a budget: no bound on the value."""
        if not any(ch.isdigit() for ch in masked) or _PURCHASE.search(masked):
            return []
        out: list[Bound] = []
        for bound in find_bounds(masked):
            if any(h.start < bound.number_end and bound.number_start < h.end for h in reading.hits):
                continue
            if bound.needs_head and not any(
                parse_label(h.label).kind != "value" and not masked[h.end : bound.start].strip()
                for h in attribute_words()
            ):
                continue
            out.append(bound)
        return out

    def _bounds_a_value(self, bound: Bound, text: str, worded: Sequence[Hit]) -> bool:
        """Whether a bound with "than" limits a value, not another product: its number is
        a value in a unit ("than 1.3kg"), scaled (10k), or a bare number of three digits or
        more that names no model or variant ("bigger than 15" may be the iPhone 15)."""
        if not bound.than:
            return False
        number = Hit("bound", bound.number_start, bound.number_end, "")
        if any(parse_label(h.label).kind == "value" and h.overlaps(number) for h in worded):
            return True
        digits = text[bound.number_start : bound.number_end]
        return bound.value_end > bound.number_end or (
            len(digits.split(".")[0]) >= 3
            and float(digits) not in self._naming_numbers
            and _bare_after(text, bound.value_end)
        )

    def _bare_bounds(
        self, masked: str, bounds: Sequence[Bound], choice: AttributeChoice, spec: Any
    ) -> list[Hit]:
        """The numbers of ``bounds`` written bare (no unit), understood as bounds on the
        attribute's value: the attribute is named by a word (not only by a value), the
        number names no model or variant unless scaled (10k), and it is of the magnitude
        of the product's own values (within a factor of ten)."""
        own = _numbers_in(spec)
        if not own or not any(parse_label(h.label).kind != "value" for h in choice.hits):
            return []
        out: list[Hit] = []
        for bound in bounds:
            scaled = bound.value_end > bound.number_end
            if not scaled and not _bare_after(masked, bound.value_end):
                continue
            text = masked[bound.number_start : bound.number_end]
            if not scaled and float(text) in self._naming_numbers:
                continue
            if not min(own) / _MAGNITUDE <= bound.value <= max(own) * _MAGNITUDE:
                continue
            out.append(Hit("bound", bound.number_start, bound.value_end, text))
        return out

    def _open_keys(self, decision: Fingerprint) -> dict[str, frozenset[str]]:
        """Constraint keys the answer varies by that the fingerprint leaves open, with the
        values it varies by."""
        taken = {key for key, _ in decision.constraints}
        specs = self._specs.get(decision.product) if decision.product else None
        keys = self._constraints.varying(decision.attribute, specs)
        return {k: v for k, v in keys.items() if k not in taken}

    def unresolved_terms(self, text: str, decision: SemanticDecision) -> tuple[str, ...]:
        """What an operator may want to add to the catalog after ``decision`` ended in no
        fingerprint (or an unknown product): product-like mentions (``product:mate 70``),
        bare brands, words the vocabulary does not know (``word:菊厂``) and the reason
        (``reason:no attribute found``). Redacted by construction: only short terms, none
        with a long digit run or an ``@``, none that a personal-data pattern matches."""
        if isinstance(decision, Fingerprint) or (
            isinstance(decision, Bypass) and decision.intent != "unknown_product"
        ):
            return ()
        norm = self._normaliser.normalise(text)
        scan = self._products.scan(norm)
        terms = [f"product:{norm[m.start : m.end]}" for m in scan.unknown]
        terms += [f"brand:{norm[m.start : m.end]}" for m in scan.brands]
        covered = bytearray(len(norm))
        for start, end in scan.spans():
            covered[start:end] = b"\x01" * (end - start)
        known = self._known_words
        position = 0
        for word in self._segmenter.words(norm):
            start, position = position, position + len(word)
            if any(covered[start:position]) or word in known:
                continue
            if (word.isascii() and word.isalpha() and len(word) >= 3) or (
                _is_cjk_word(word) and self._segmenter.general_frequencies.get(word, 0) < 50
            ):
                terms.append(f"word:{word}")
        reason = decision.reason.split("(")[0].split(":")[0].strip()
        terms.append(f"reason:{reason}")
        return tuple(dict.fromkeys(t for t in terms if self._is_safe_term(t)))

    def _is_safe_term(self, term: str) -> bool:
        kind, _, body = term.partition(":")
        if kind == "reason":
            return bool(body)  # our own wording, never the asker's
        if not body or len(body) > 32 or "@" in body or _LONG_DIGITS.search(body):
            return False
        return not self._gate.matches("personal", body)

    def _lists_own_values(self, keys: Sequence[str], attribute_hits: Sequence[Hit]) -> bool:
        """Whether the several values of ``keys`` are what the question asks for: each key
        names a spec asked by its own word whose answer is the list of that key's values
        ("what storage options … like 256 / 512": examples of the answer, not a
        comparison)."""
        asked = {
            parse_label(h.label).name
            for h in attribute_hits
            if parse_label(h.label).kind == "strong"
        }
        return bool(keys) and all(
            key in asked
            and self._attributes.spec(key).kind == "spec"
            and not self._attributes.spec(key).constraint_keys
            for key in keys
        )

    def _unknown_latin_word(self, masked: str, read: Sequence[Hit] = ()) -> str | None:
        """A Latin word neither the vocabulary nor the English dictionary knows: a
        misspelt variant or value word the rules may have read past ("pro mx"). A word
        inside a stated value the rules read (the wr of "wr50") is understood."""
        if not UNKNOWN_WORD_CHECK:
            return None
        for match in _LATIN_WORD.finditer(masked):
            word = match.group()
            if any(h.start <= match.start() and match.end() <= h.end for h in read):
                continue
            if word in _CONTRACTION_TAILS and masked[match.start() - 1 : match.start()] in "'’":
                continue  # the 've of "I've", the 're of "you're"
            if word in self._chat_words or _LAUGHTER.fullmatch(word):
                continue
            if _BARE_CONTRACTION.fullmatch(word):
                continue  # "dont", "im", "youre": a contraction typed without its apostrophe
            if word.endswith("n") and masked.startswith("'t", match.end()):
                continue  # the "didn" of "didn't": a negated auxiliary
            if word not in self._known_words and word not in self._english:
                if any(form in self._english for form in standard_forms(word)):
                    continue  # "neighbour", "yrs": a British spelling or an abbreviation
                if self._plain_english.reads(word):
                    continue  # "gameplay", "usualy": plain English, near no word of ours
                return word
        return None

    def _decide_rules(
        self, text: str, norm: str, scanned: ProductScan | None = None
    ) -> _RulesDecision:
        """The rules' decision on ``text`` (normalised: ``norm``), whether its product
        was named through the grammar, whether its attribute was settled by a number in a
        unit only it uses, the spans of the nouns of stated values (in ``norm``) and, for
        a name short form the reader cannot read, its span and the listed name it stands for
        (``scanned``: the products of ``norm`` when already scanned)."""
        if not norm:
            return NoFingerprint("empty question"), False, False, (), ()
        scan = scanned if scanned is not None else self._products.scan(norm)
        if scan.products and _MODEL_YEAR.search(norm):
            scan = self._with_model_years(norm, scan)
        if scan.products and "代" in norm:
            scan = self._with_unlisted_generations(norm, scan)
        trademarks = self._trademarks(text)
        boundaries = self._segmenter.boundaries(norm)
        decision, by_unit, nouns = self._decide_scanned(norm, scan, boundaries, trademarks)
        if not scan.products and (
            (isinstance(decision, NoFingerprint) and not scan.unknown)
            or (
                isinstance(decision, Bypass)
                and decision.intent == "unknown_product"
                and bool(scan.unknown)
            )
        ):
            in_context = self._in_context(norm, scan, boundaries, trademarks, _capitals(text))
            if in_context is not None:
                return in_context
        listed = tuple(
            (m.start, m.end, m.listed)
            for m in scan.products
            if m.listed and isinstance(decision, Fingerprint) and m.product_id == decision.product
        )
        return decision, any(m.derived for m in scan.products), by_unit, nouns, listed

    def _own_value_choice(
        self, masked: str, product: str, reading: ConstraintReading
    ) -> AttributeChoice | None:
        """The attribute a question with no attribute word names by stating the product's
        own value: words that are values it lists of exactly one attribute (its colours
        "teal and ultramarine"), or one bare number, asked to be confirmed, that is the
        value of exactly one of its attributes for the variant stated (price 1488 of the
        46 mm case) and no other number of its specs."""
        listed, pattern = self._listed_values.get(product, ({}, None))
        found = (
            [(m.start(), m.end(), listed[m.group()]) for m in pattern.finditer(masked)]
            if pattern is not None
            else []
        )
        if found:
            names = {name for _, _, name in found}
            if len(names) != 1 or _NUMBER.search(masked):
                return None
            if self._every_listed is not None and any(
                m.group() not in listed for m in self._every_listed[1].finditer(masked)
            ):
                return None  # "teal and red": a value it does not list, too
            hits = tuple(Hit(f"#{name}", s, e, masked[s:e]) for s, e, name in found)
            return AttributeChoice(names.pop(), "the product's listed value", hits, True)
        read = bytearray(len(masked) + 1)
        for hit in (*reading.hits, *reading.negated):
            read[hit.start : hit.end] = b"\x01" * (hit.end - hit.start)
        numbers = [h for h in _whole_numbers(masked) if not any(read[h.start : h.end])]
        if len(numbers) != 1 or len(numbers[0].text.replace(".", "")) < 3:
            return None
        (number,) = numbers
        if not _CONFIRMING.match(masked, number.end):
            return None
        stated = tuple((k, next(iter(vs))) for k, vs in reading.values.items() if len(vs) == 1)
        value = float(number.text)
        specs = self._specs[product]
        owners = {a for a, spec in specs.items() if value in _spec_numbers(spec)}
        if len(owners) != 1:
            return None
        (attribute,) = owners
        if _own_number(specs[attribute], stated) != value:
            return None  # the value of a variant the question does not state
        hit = Hit(f"#{attribute}", number.start, number.end, number.text)
        return AttributeChoice(attribute, "the product's own value", (hit,), True)

    def _with_model_years(self, norm: str, scan: ProductScan) -> ProductScan:
        """``scan`` with each product's name running on over its own release year written
        right after it ("x1 carbon 2024", "2024款"): a model year names the product; a
        year with a month or 年 after it (2024年9月) is a date and stays one."""
        products = []
        for mention in scan.products:
            match = _MODEL_YEAR.match(norm, mention.end)
            if (
                match is not None
                and mention.product_id is not None
                and match.group(1) == self._release_years.get(mention.product_id)
            ):
                mention = replace(mention, end=match.end())
            products.append(mention)
        return replace(scan, products=tuple(products))

    def _with_unlisted_generations(self, norm: str, scan: ProductScan) -> ProductScan:
        """``scan`` with each product named with a generation its catalog names and
        notes do not give it ("x1 carbon 11代" of a product listed as Gen 12) moved to
        the unknown models: that generation is another model, one we do not sell."""
        products, unknown = [], list(scan.unknown)
        for mention in scan.products:
            listed = self._named_generations.get(mention.product_id or "")
            after = _GENERATION_AFTER.match(norm, mention.end) if listed else None
            before = _GENERATION_BEFORE.search(norm[: mention.start]) if listed else None
            said = [m.group(1) for m in (after, before) if m is not None]
            if listed is not None and any(g not in listed for g in said):
                start = before.start() if before is not None else mention.start
                end = after.end() if after is not None else mention.end
                unknown.append(Mention(start, end, reason="generation not in catalog"))
            else:
                products.append(mention)
        if len(products) == len(scan.products):
            return scan
        return replace(scan, products=tuple(products), unknown=tuple(unknown))

    def _in_context(
        self,
        norm: str,
        scan: ProductScan,
        cuts: frozenset[int],
        trademarks: frozenset[str],
        capitals: frozenset[str] = frozenset(),
    ) -> _RulesDecision | None:
        """汉的三电质保, s9 41mm屏幕多大, the 45 mm series 9: a short name only context makes
        a product (a one-character short name that is a word of its own, or a listed
        name's model letter or series word and number alone, also where the grammar read
        it as an unknown model) names its product when the fingerprint it then gets is one
        only that product's category has (an attribute of that category alone, or a
        constraint value only its products offer); otherwise it names nothing."""
        mentions = self._products.context_mentions(norm, capitals)
        if len(mentions) != 1:
            return None
        (mention,) = mentions
        if any(not (mention.start <= u.start and u.end <= mention.end + 1) for u in scan.unknown):
            return None  # "series 9" may have been read as an unknown model: only that one
        if mention.start not in cuts or mention.end not in cuts:
            return None  # 汉字, 好汉, 武汉: part of a word
        # "s9手表": a category word right after the name says which category it is
        category_word = self._products.category_after(norm, mention.end)
        if not category_word and not opens_a_word(norm[mention.end :], self._openings):
            return None  # 汉兰达: a name the dictionary does not know
        named = ProductScan((mention,), (), scan.brands)
        decision, by_unit, nouns = self._decide_scanned(norm, named, cuts, trademarks)
        if not isinstance(decision, Fingerprint) or decision.product is None:
            return None
        category = self._products.category_of(decision.product)
        spec = self._attributes.spec(decision.attribute)
        own_category = set(spec.applies_to) - {STORE_SCOPE} == {category} or any(
            self._value_categories.get((decision.attribute, key, value)) == frozenset({category})
            for key, value in decision.constraints
        )
        # "series 9 water resistant to 50 m": every number stated beside the name is one
        # the attribute's texts write for products of this category only.
        stated = set(_NUMBER.findall(norm[: mention.start] + " " + norm[mention.end :]))
        own_value = bool(stated) and all(
            self._number_categories.get((decision.attribute, n)) == frozenset({category})
            for n in stated
        )
        own_category = own_category or own_value or category_word == category
        # "tesla MY price": an initialism in capitals beside its own brand word.
        own_brand = mention.reason == "initialism" and any(
            b.reason == self._products.brand_of(decision.product) for b in scan.brands
        )
        if not (own_category or own_brand):
            return None
        return decision, True, by_unit, nouns, ((mention.start, mention.end, mention.listed),)

    def _trademarks(self, text: str) -> frozenset[str]:
        """Vocabulary words the question writes in CamelCase ("ProMotion", "MagSafe"): a
        capital inside a word marks a trademark, so "ProMotion" is the display feature
        the vocabulary lists, never the ordinary word "promotion" a bypass rule means."""
        return frozenset(
            word
            for match in _CAMEL_WORD.finditer(text)
            if (word := match.group().lower()) in self._known_words
        )

    def _named_beside(
        self, masked: str, attribute_words: Callable[[], list[Hit]]
    ) -> list[tuple[int, int]]:
        """Spans of attribute words that are also a bypass cue, standing right beside
        another cue of the same attribute: in "promotion refresh rate" the word is the
        display feature the vocabulary lists for the refresh rate named next to it, not
        a sales promotion (next to another attribute, "promotion price", it stays one)."""
        if not any(word in masked for word in self._bypass_attribute_words):
            return []
        strong = [
            (h, parse_label(h.label).name)
            for h in attribute_words()
            if parse_label(h.label).kind == "strong"
        ]
        spans: list[tuple[int, int]] = []
        for hit, name in strong:
            if hit.text not in self._bypass_attribute_words:
                continue
            for other, other_name in strong:
                if other_name != name or other.overlaps(hit):
                    continue
                gap = (
                    masked[hit.end : other.start]
                    if hit.end <= other.start
                    else masked[other.end : hit.start]
                )
                if not gap.strip():
                    spans.append((hit.start, hit.end))
                    break
        return spans

    def _now_asked_apart(
        self, gate_text: str, boundaries: frozenset[int], asked: Sequence[Hit]
    ) -> bool:
        """Whether a present-time cue stands in a clause of its own that asks, apart from
        the words of the attribute asked ("…续航多少？现在下单的话交付周期多久？"): the
        message asks a second question, of this moment."""
        cues = self._gate.hits("realtime", gate_text, boundaries)
        return any(
            any(start <= h.start and h.end <= end for h in cues)
            and not any(start < h.end and h.start < end for h in asked)
            and _asks(gate_text, start, end)
            for start, end in _clauses(gate_text)
        )

    def _situation_blanked(
        self,
        gate_text: str,
        boundaries: frozenset[int],
        intent: str,
        attribute_words: Callable[[], list[Hit]],
    ) -> str | None:
        """``gate_text`` with the clauses blanked that only describe the asker's
        situation, when another clause names the product: a clause with no product, no
        attribute word and no higher bypass, whose ``intent`` cues are either a future
        time of the asker's own plans (a first-person clause: 我下周要出差) or, for a
        comparison, a degree adverb before an adjective (车库比较窄: "fairly narrow")."""
        clauses = _situation_clauses(gate_text)
        if clauses is None and intent == "predict":
            # "下个月我爸过生日…，一般几天能发货": a store rule is asked of no product; the
            # clause naming the policy is the one that asks.
            clauses = self._policy_clauses(gate_text, attribute_words())
        if clauses is None:
            return None
        cues = self._gate.hits(intent, gate_text, boundaries)
        worded = attribute_words()
        # 先不管这个: the asker puts what came before aside, attribute words and all.
        dismissed_until = max((s for s, e in clauses if _dismisses(gate_text, s, e)), default=0)
        blanked: list[tuple[int, int]] = []
        for start, end in clauses:
            clause = gate_text[start:end]
            inside = [h for h in cues if start <= h.start and h.end <= end]
            if not inside or PRODUCT_MASK in clause or UNKNOWN_MASK in clause:
                continue
            if _asks(gate_text, start, end):
                continue  # 我想知道下个月会不会降价: a situation is told, not asked
            own_words = [h for h in worded if start < h.end and h.start < end]
            if (
                own_words
                and end > dismissed_until
                and not (
                    # 我在几个平台看到的价格都不一样，…官网定价是多少: the clause's attribute
                    # is the one the question asks elsewhere; it only says what was seen.
                    intent == "compare"
                    and _named_elsewhere(own_words, worded, start, end)
                    and self._reports_difference(gate_text, start, end, inside)
                )
            ):
                continue
            local = _clause_boundaries(boundaries, start, end)
            alone = self._gate.first_bypass(clause, local, {})
            if alone is None or alone[0] != intent:
                continue  # a personal or real-time cue in the clause still counts
            if intent == "realtime":
                # 最近在看电车，…: a time word that only says when the asker does
                # something; any other cue of the clause (优惠, 有货) still counts.
                times, verb = self._segmenter.time_words_and_verbs(clause)
                spans = {(s + start, e + start) for s, e in times}
                if not verb or any(
                    not any(s <= h.start and h.end <= e for s, e in spans) for h in inside
                ):
                    continue
                rest = _blank_spans(clause, [(h.start - start, h.end - start) for h in inside])
                if self._gate.first_bypass(rest, local, {}) is not None:
                    continue
            elif intent == "compare":
                adverbs = {
                    (s + start, e + start) for s, e in self._segmenter.degree_adverbs(clause)
                }
                if any(
                    (h.start, h.end) not in adverbs for h in inside
                ) and not self._reports_difference(gate_text, start, end, inside):
                    continue
            elif (
                not (
                    _FIRST_PERSON.search(clause)
                    or (intent == "personal" and _ASKERS_OWN.search(clause))
                )
                or (intent == "personal" and any(ch.isdigit() for ch in clause))
                or (intent == "personal" and _OWN_UNIT.search(clause))
            ):
                # A personal clause with a number (an order, a phone) stays personal; so
                # does one about the asker's own unit (我这台, mine): the product asked.
                continue
            blanked.append((start, end))
        if not blanked:
            return None
        return _blank_spans(gate_text, blanked)

    def _policy_clauses(
        self, gate_text: str, worded: Sequence[Hit]
    ) -> list[tuple[int, int]] | None:
        """The clauses of a question about a store rule that may tell the asker's
        situation beside the one naming the policy: a few of them, no product named."""
        clauses = _clauses(gate_text)
        if not 2 <= len(clauses) <= _MAX_SITUATION_CLAUSES or PRODUCT_MASK in gate_text:
            return None
        policies = [
            h
            for h in worded
            if parse_label(h.label).kind == "strong"
            and self._attributes.spec(parse_label(h.label).name).kind == "policy"
        ]
        if not any(any(s <= h.start and h.end <= e for h in policies) for s, e in clauses):
            return None
        return clauses

    def _past_blanked(
        self, gate_text: str, boundaries: frozenset[int], attribute_words: Callable[[], list[Hit]]
    ) -> str | None:
        """``gate_text`` with the clauses blanked that tell what the asker did before
        (上次去试驾没太注意: a past time opens the clause, which asks nothing and names no
        product or attribute), when another clause names the product: their real-time
        cues are history, not the moment asked about."""
        clauses = _situation_clauses(gate_text)
        if clauses is None:
            return None
        cues = self._gate.hits("realtime", gate_text, boundaries)
        worded = attribute_words()
        blanked: list[tuple[int, int]] = []
        for start, end in clauses:
            clause = gate_text[start:end]
            inside = [h for h in cues if start <= h.start and h.end <= end]
            if (
                not inside
                or PRODUCT_MASK in clause
                or UNKNOWN_MASK in clause
                or _PAST_TIME.match(clause) is None
                or _QUESTION_WORD.search(clause)
                or any(start < h.end and h.start < end for h in worded)
            ):
                continue
            local = _clause_boundaries(boundaries, start, end)
            rest = _blank_spans(clause, [(h.start - start, h.end - start) for h in inside])
            if self._gate.first_bypass(rest, local, {}) is not None:
                continue  # another cue of the clause still counts
            blanked.append((start, end))
        return _blank_spans(gate_text, blanked) if blanked else None

    def _reports_difference(
        self, gate_text: str, start: int, end: int, cues: Sequence[Hit]
    ) -> bool:
        """Whether the clause ``gate_text[start:end]`` states what the asker found (我看网上
        说法不一样): a first-person subject, then a verb, before every cue, and no question
        in it; "我想知道有什么不一样" asks a comparison."""
        clause = gate_text[start:end]
        person = _FIRST_PERSON.search(clause)
        if (
            person is None
            or _QUESTION_WORD.search(clause)
            or gate_text[end : end + 1] in {"?", "？"}
        ):
            return False
        first_cue = min(h.start for h in cues) - start
        return person.end() < first_cue and self._segmenter.has_verb(
            clause[person.end() : first_cue]
        )

    def _without_name_values(
        self, hits: list[Hit], products: Sequence[Mention], norm: str
    ) -> list[Hit]:
        """ "m3芯片1T版本售价": an attribute word right after a name that ends in the
        product's own value code of that attribute (the M3 of its processor) belongs to
        the name; it drops out when a strong cue of another attribute is beside it."""
        own: list[Hit] = []
        for mention in products:
            code = _NAME_CODE.search(norm, mention.start, mention.end)
            if mention.product_id is None or code is None:
                continue
            after = mention.end + (norm[mention.end : mention.end + 1] == " ")
            for hit in hits:
                name = parse_label(hit.label).name
                codes = self._value_codes.get((mention.product_id, name))
                # a modifier of what follows (m3芯片的续航, m3芯片1t版本), not 芯片和续航
                follows = norm[hit.end : hit.end + 2].lstrip()[:1]
                if (
                    hit.start == after
                    and codes is not None
                    and code.group(0) in codes[0]
                    and (follows == "的" or follows.isdigit())
                ):
                    own.append(hit)
        if not own or not any(
            parse_label(h.label).kind == "strong"
            and parse_label(h.label).name != parse_label(own[0].label).name
            for h in hits
        ):
            return hits
        return [h for h in hits if h not in own]

    def _without_phrase_brands(
        self, norm: str, scan: ProductScan, boundaries: frozenset[int]
    ) -> ProductScan:
        """``scan`` without its brand words when each is part of a longer phrase of the
        attribute vocabulary ("支持apple pay吗": a way to pay, no product). A word of a
        device elsewhere (a brand, 手表, iphone) makes it a device's feature asked."""
        phrases = [(h.start, h.end) for h in self._attributes.find(norm, boundaries)]
        if not all(
            any(s <= m.start and m.end <= e and e - s > m.end - m.start for s, e in phrases)
            for m in scan.brands
        ):
            return scan
        if self._device_words.search(_blank_spans(norm, phrases)):
            return scan
        return ProductScan(scan.products, scan.unknown, (), scan.expansions)

    def _unsold_variant(
        self, product: str | None, attribute: str, norm: str, scan: ProductScan
    ) -> Bypass | None:
        """A variant of ``product`` the catalog does not describe, named in ``norm``: one
        its note rules out ("AirPods Pro 2 Lightning version"), or a colour beside its
        name it is not sold in ("iPhone 15 紫色 多少钱"; asking the colours is no variant)."""
        ruled_out = self._note_variants.ruled_out(product, norm)
        if ruled_out is not None:
            return Bypass(
                "unknown_product", f"a {ruled_out.replace('_', ' ')} the catalog does not describe"
            )
        if attribute == "colors":
            return None
        hue = self._listed_colours.unlisted(
            product,
            norm,
            lambda: [(m.start, m.end) for m in scan.products if m.product_id == product],
        )
        if hue is not None:
            return Bypass("unknown_product", f"a {hue} colour the catalog does not list")
        return None

    def _size_read_as_model(self, product: str, norm: str, scan: ProductScan) -> bool:
        """Whether a mention of ``product`` ends in a number followed by an inch word that is
        none of its screen sizes ("苹果16寸笔记本": sixteen inches, not the iPhone 16)."""
        for m in scan.products:
            if m.product_id != product or _INCH_AFTER.match(norm, m.end) is None:
                continue
            number = _LAST_NUMBER.search(norm, m.start, m.end)
            if number is not None and number.group(1) not in self._whole_inches.get(product, ()):
                return True
        return False

    def _variant_apart(self, product: str | None, norm: str, scan: ProductScan) -> str | None:
        """A variant word with an edition head, or variant words in apposition to the name
        (也就是Pro Max), that stand apart from every mention of ``product`` and are no words
        of its names ("苹果15那个plus版本"), or None."""
        if product is None:
            return None
        own = self._name_words.get(product, frozenset())
        for match in (
            *self._detached_variant.finditer(norm),
            *self._appositive_variant.finditer(norm),
        ):
            if set(match.group(1).split()) <= own:
                continue
            start, end = match.span(1)
            # Inside a mention, or right after one ("iphone 15 pro版"): part of the name.
            if not any(
                (m.start < end and start < m.end)
                or (m.end <= start and not norm[m.end : start].strip())
                for m in scan.products
            ):
                return match.group(1)
        return None

    def _accessories_asked(
        self, norm: str, boundaries: frozenset[int], scan: ProductScan
    ) -> list[Mention]:
        """Accessories the question asks about rather than a product: one attached to a
        named product ("苹果15的手机壳", "the sport band for the watch s9") or named with
        no product. A question about what is in the box names them as its contents."""
        named = (*scan.products, *scan.unknown)
        hits = [
            h
            for h in self._accessories.find(norm, boundaries)
            if not any(h.start < m.end and m.start < h.end for m in named)
        ]
        if not hits or any(h.label == "in_box" for h in self._attributes.find(norm, boundaries)):
            return []
        return [
            Mention(h.start, h.end, reason="an accessory the catalog does not list")
            for h in hits
            if not scan.products
            or any(
                _ATTACHED_AFTER.fullmatch(norm, m.end, h.start)
                or _ATTACHED_BEFORE.fullmatch(norm, h.end, m.start)
                for m in scan.products
            )
        ]

    def _decide_scanned(
        self,
        norm: str,
        scan: ProductScan,
        boundaries: frozenset[int],
        trademarks: frozenset[str] = frozenset(),
    ) -> tuple[SemanticDecision, bool, tuple[tuple[int, int], ...]]:
        """The rules' decision on ``norm`` (word boundaries: ``boundaries``, segmented
        once per question) with the products ``scan`` names."""
        if scan.brands and not scan.products:
            scan = self._without_phrase_brands(norm, scan, boundaries)
        other = [
            Mention(h.start, h.end, reason="brand we do not sell")
            for h in self._other_brands.find(norm, boundaries)
            if not any(h.start < m.end and m.start < h.end for m in (*scan.products, *scan.unknown))
        ]
        unknown = [*scan.unknown, *other]
        accessories = self._accessories_asked(norm, boundaries, scan)
        masked = _mask(norm, scan.products, PRODUCT_MASK)
        masked = _mask(masked, [*unknown, *accessories, *scan.brands], UNKNOWN_MASK)
        found: list[list[Hit]] = []

        def attribute_words() -> list[Hit]:
            """The attribute vocabulary's hits in ``masked``, read once, by whichever
            step needs them first (the gate's checks and the attribute reading)."""
            if not found:
                found.append(
                    [
                        h
                        for h in self._attributes.find(masked, boundaries)
                        if not _approximate_numeral(masked, h)
                    ]
                )
            return found[0]

        product_ids = scan.product_ids
        category = self._products.category_of(product_ids[0]) if len(product_ids) == 1 else None
        reading = self._constraints.read(masked, boundaries, category)

        structural: dict[str, str] = {}
        # "上次在别家买的X没给发票，你们…": what the asker bought elsewhere is the story
        # told before the question, not a product asked about.
        unknown = [m for m in unknown if not _bought_elsewhere(norm, m)]
        named = len(product_ids) + len(_unknown_names(norm, unknown))
        if product_ids:
            # "华为手表和苹果手表9代哪个…": a brand and category word of another brand than
            # the named products' is another product, unnamed.
            own_brands = {self._products.brand_of(p) for p in product_ids}
            named += len(
                {m.reason for m in scan.brands if m.category and m.reason not in own_brands}
            )
        if named >= 2:
            structural["compare"] = f"names {named} products"
        elif reading.conflicting_keys() and not self._lists_own_values(
            reading.conflicting_keys(), attribute_words()
        ):
            structural["compare"] = f"several values of {', '.join(reading.conflicting_keys())}"
        if unknown and not product_ids:
            structural["unknown_product"] = unknown[0].reason
        elif accessories:
            structural["unknown_product"] = accessories[0].reason
        if len(product_ids) == 1:
            newer = newer_versions(
                masked, self._version_patterns, self._launch_versions[product_ids[0]]
            )
            if newer:
                structural["predict"] = f"a newer version than at launch: {newer[0]!r}"
        gate_text = _blank_words(masked, trademarks)
        gate_text = _blank_spans(gate_text, self._named_beside(masked, attribute_words))
        bounds = self._bounds(masked, reading, attribute_words)
        bypass = self._first_meant_bypass(
            gate_text, boundaries, structural, attribute_words, bounds
        )
        present: tuple[str, str] | None = None
        if (
            bypass is not None
            and bypass[0] == "realtime"
            and "realtime" not in structural
            and only_present_time(self._gate.hits("realtime", gate_text, boundaries))
        ):
            # "现在出厂是什么系统": "now" alone is real-time only for an attribute that
            # changes with the moment; read on, and decide once the attribute is known.
            present = bypass
            bypass = self._gate.first_bypass(
                gate_text, boundaries, structural, skip=frozenset(("realtime",))
            )
            if bypass is not None:
                # Another intent applies too: the policy's precedence decides, as before.
                bypass, present = present, None
        spec_only = False
        situation_intent = "personal"
        if bypass is not None and bypass[0] in _SITUATION_INTENTS and bypass[0] not in structural:
            # "我下周要出差，…能撑多久": a clause that only tells the asker's situation
            # (no product, no attribute word) carries no bypass of the question asked.
            situation = self._situation_blanked(gate_text, boundaries, bypass[0], attribute_words)
            past = False
            if situation is None and bypass[0] == "realtime":
                situation = self._past_blanked(gate_text, boundaries, attribute_words)
                past = situation is not None
            if situation is not None:
                # "我买了个磁吸底座，苹果16无线充几瓦": what the asker did is theirs, but
                # a catalog product's spec is everyone's answer; a policy or a price
                # (what they paid, what a past deal was) stays theirs.
                spec_only = bypass[0] == "personal" or past
                situation_intent = bypass[0]
                bypass = self._gate.first_bypass(situation, boundaries, structural)
        if bypass is not None:
            return Bypass(*bypass), False, ()

        attribute_hits = self._without_name_values(attribute_words(), scan.products, norm)
        # "跟价格无关哈，苹果16 的无线充电功率是多少": a topic the asker rules out is not asked.
        asked = [h for h in attribute_hits if not topic_ruled_out(masked, h.start, h.end)]
        if asked:
            attribute_hits = asked
        constraint_spans = reading.spans()
        topic_spans = [
            (h.start, h.end, self._attributes.topic_of(parse_label(h.label).name))
            for h in reading.hits
        ]
        # A cue inside a constraint value's phrase is the value's, except a cue of the
        # attribute the key itself names: "battery warranty" states the coverage and
        # asks the warranty, which then meets any other cue ("… mileage") on its own.
        outside = {id(h) for h in strip_inside(attribute_hits, constraint_spans)}
        attribute_hits = _without_quantity_heads(
            _without_cut_cues(
                [
                    h
                    for h in attribute_hits
                    if id(h) in outside
                    or any(
                        s <= h.start and h.end <= e and parse_label(h.label).name == topic
                        for s, e, topic in topic_spans
                    )
                ]
            ),
            masked,
        )
        attribute_hits = _not_starting_inside(attribute_hits, topic_spans)
        worded = attribute_hits
        attribute_hits = _without_value_nouns(attribute_hits, reading.hits, masked)
        # The nouns of stated values ("with 1 TB storage, how much?") name the variant;
        # the second reader reads the question without them, as the rules do.
        kept_ids = {id(h) for h in attribute_hits}
        value_nouns = tuple((h.start, h.end) for h in worded if id(h) not in kept_ids)
        attribute_hits = [
            h
            for h in attribute_hits
            if not self._constraints.ends_in_variant_word(
                masked, h.start, h.end, boundaries, TOPIC_KEYS
            )
        ]
        # "price of every storage option": the quantified words name the variants the
        # other attribute is asked over, not what is asked.
        attribute_hits = _outside_spans(attribute_hits, quantified_variant_spans(masked))
        choice = self._attributes.resolve(attribute_hits, category, reading.values, masked)
        if choice.attribute is None and choice.reason == "no attribute found" and category:
            # No attribute word: a value the product itself lists or gives may be what
            # the question asks to confirm ("gt4 46mm 1488?", "come in teal?").
            choice = self._own_value_choice(masked, product_ids[0], reading) or choice
        if choice.attribute is None:
            if present is not None:
                return Bypass(*present), False, ()
            return NoFingerprint(choice.reason), False, ()
        attribute = choice.attribute
        spec = self._attributes.spec(attribute)
        if present is not None and (
            attribute in self._volatile or self._now_asked_apart(gate_text, boundaries, choice.hits)
        ):
            return Bypass(*present), False, ()
        product = product_ids[0] if product_ids else None
        if product is not None and _store_wide(spec, category):
            # "苹果16包邮吗": the policy applies to the store, not to phones (attributes.json's
            # applies_to), so the store-wide rule answers it, under the store-wide key.
            if _DEVICE_CAPABILITY.search(masked):
                # "Apple Watch 支持支付宝吗": what the device supports, or the store's rule.
                return (
                    NoFingerprint("asks what the product supports or the store's rule"),
                    False,
                    (),
                )
            product = None
        if situation_intent == "predict" and attribute in self._changing_specs:
            # "如果我等到下个月，价格多少": the asker's plan dates the question, and a price
            # by then is a forecast; a fixed spec ("我下周出差，能撑多久") is not.
            return Bypass("predict", "a changing spec at the asker's planned time"), False, ()
        if spec_only and (
            product is None or spec.kind == "policy" or attribute in self._money_attributes
        ):
            return (
                Bypass(situation_intent, "the asker's own situation, and no product spec"),
                False,
                (),
            )
        if product is None:
            if spec.kind != "policy":
                return NoFingerprint("spec question without a catalog product"), False, ()
            if any(not _touches(m, choice.hits) for m in scan.brands):
                return NoFingerprint("names a brand but no model"), False, ()
            head = next(
                (m for m in _LATIN_WORD.finditer(masked) if m.group() in self._series_heads), None
            )
            if head is not None and not _touches_any(
                Hit("series", head.start(), head.end(), head.group()), choice.hits
            ):
                # "galaxy s twenty four ultra warranty": a series named, its model not read;
                # the store-wide rule may not be that product's.
                return NoFingerprint("names a series but no model"), False, ()
        unsold = self._unsold_variant(product, attribute, norm, scan)
        if unsold is not None:
            return unsold, False, ()
        apart = self._variant_apart(product, norm, scan)
        if apart is not None:
            return NoFingerprint(f"the variant {apart!r} named apart from the name"), False, ()
        edition = _EDITION_AFTER_NAME_LATIN.search(masked)
        if edition is not None and product is not None:
            word = edition.group(1)
            # A word the vocabulary knows (standard, base) names a listed variant or none.
            if (
                word not in self._known_words
                and word not in self._name_words.get(product, ())
                and word not in self._spec_words.get(product, ())
            ):
                return (
                    Bypass("unknown_product", f"an edition the catalog does not list: {word!r}"),
                    False,
                    (),
                )
        if product is not None and self._size_read_as_model(product, norm, scan):
            return NoFingerprint("the number after the name is a size in inches"), False, ()
        constraint_choice = self._constraints.choose(
            reading,
            attribute,
            self._specs.get(product) if product else None,
            masked,
            boundaries,
            category if product else None,
        )
        if constraint_choice.problem is not None:
            return NoFingerprint(constraint_choice.problem), False, ()
        if product is None:
            taken = {key for key, _ in constraint_choice.constraints}
            only_products = sorted(
                k
                for k in reading.values
                if k in self._product_keys.get(attribute, ()) and k not in taken
            )
            if only_products:
                # "毛豆Y电池包质保…": a battery warranty is a product's, never the store's; with
                # no product read, the product is one we did not recognise.
                return (
                    NoFingerprint(
                        f"a {only_products[0]} only a product's {attribute} has, but no product"
                    ),
                    False,
                    (),
                )
        durations = _durations(masked) if spec.kind == "policy" else []
        # A value a bound limits ("续航超过500公里吗") is the asker's, checked against the
        # product's own: it names no variant, when a word names the attribute or the
        # value's unit measures it alone ("battery bigger than 70 kWh"); an amount of money
        # alone does not (首付低于5万: what is paid is not known).
        worded_attribute = any(parse_label(h.label).kind != "value" for h in choice.hits) or (
            attribute not in self._money_attributes
            and any(h.label.startswith(UNIT_VALUE_MARK) for h in choice.hits)
        )
        bounded = [
            Hit("bound", b.number_start, b.number_end, "") for b in bounds if worded_attribute
        ]
        if constraint_choice.open_keys and any(
            h.label.startswith("#")
            and not _touches_any(h, durations)
            and not any(h.overlaps(b) for b in bounded)
            for h in choice.hits
        ):
            # "是2亿像素吗" names the main camera without saying so: not the summary class.
            return (
                NoFingerprint(f"a stated value implies a {constraint_choice.open_keys[0]}"),
                False,
                (),
            )
        if attribute in self._money_attributes:
            durations += _stated_amounts(masked)
        own = (
            _own_number(self._specs[product].get(attribute), constraint_choice.constraints)
            if product is not None
            else None
        )
        if own is not None:
            # "screen size, is it 6.3?", "msrp 1899", "14 days right?": the product's own
            # value asked to be confirmed, its unit left out, wherever it stands; any
            # other bare number may name a variant (abstain).
            durations += [h for h in _whole_numbers(masked) if float(h.text) == own]
        codes = self._value_codes.get((product, attribute)) if product is not None else None
        if codes is not None:
            # "is it H2", "是9000S吗", "出厂是鸿蒙4.0吗": a code of the product's own text
            # value (a chip, a system version) names that value, not a variant.
            durations += _spec_codes(masked, codes)
        if product is not None and _lists_items(self._specs[product].get(attribute)):
            # "盒子里有70W适配器吗": the answer lists things, and a value in a unit
            # (70W) describes the thing asked about, not a variant of the product.
            durations += [h for h in attribute_hits if parse_label(h.label).kind == "value"]
        if product is not None:
            # "苹果16…问下16无线充几瓦": the named product's own model number said again
            # alone is that product, not a value.
            durations += _repeated_model_numbers(masked, norm, scan.products, product)
        if product is not None:
            # "电池容量是不是3500以上", "官方价过9000吗": a bare number a bound word limits,
            # the attribute named by a word, is the asker's bound on the product's value.
            durations += self._bare_bounds(
                masked, bounds, choice, self._specs[product].get(attribute)
            )
        # A value read but ruled out ("512不够") is understood, though not asked.
        stray = _unexplained_number(
            masked, [*reading.hits, *reading.negated, *choice.hits, *durations]
        )
        if stray is not None:
            return NoFingerprint(f"number not understood: {stray!r}"), False, ()
        values = [h for h in choice.hits if h.label.startswith("#")]
        # "series 9 (gps)": the variant the catalog's note says it describes is understood.
        named_product = product_ids[0] if len(product_ids) == 1 else None
        values += [
            Hit("variant", start, end, masked[start:end])
            for start, end in self._note_variants.described_spans(named_product, masked)
        ]
        unknown_word = self._unknown_latin_word(masked, values)
        if unknown_word is not None:
            return NoFingerprint(f"word not understood: {unknown_word!r}"), False, ()
        nicknames = self._stray_nicknames.find(masked, boundaries)
        if (
            nicknames
            and product_ids
            and not any(self._variant_in_name.search(norm, m.start, m.end) for m in scan.products)
        ):
            # "苹果15最大那款超大杯": the nickname names a variant apart from the name read
            return (
                NoFingerprint(f"a variant nickname apart from the name: {nicknames[0].text!r}"),
                False,
                (),
            )
        fingerprint = Fingerprint(
            product=product,
            attribute=attribute,
            intent=spec.intent,
            constraints=constraint_choice.constraints,
        )
        # A variant the fingerprint names by a number in a unit ("the bigger 45 mm one,
        # how much") is no sign of the attribute asked: the second reader reads the
        # question without it, as it does without the nouns of stated values (its unit
        # would read as a size), nor is a worded variant of a key that only says which
        # product ("base version", "long range": a trim; its "version" reads as a system
        # version). Worded values of a key that names what is asked (电池质保, 长焦) imply
        # the attribute: kept.
        chosen = {f"{key}={value}" for key, value in constraint_choice.constraints}
        variants = tuple(
            (h.start, variant_name_end(masked, h.end))
            for h in reading.hits
            if h.label in chosen
            and (any(ch.isdigit() for ch in h.text) or parse_label(h.label).name not in TOPIC_KEYS)
        )
        return fingerprint, choice.by_unit, (*value_nouns, *variants)


#: Bypass intents whose cues may only describe the asker's situation in a clause of its own.
_SITUATION_INTENTS = frozenset(("realtime", "predict", "compare", "personal"))
#: A question is a few clauses; past this many, none is read as a situation (each clause
#: is checked against every cue, which must stay linear in the question's length).
_MAX_SITUATION_CLAUSES = 6
#: An accessory right after a product's name, or before it with "for": the product's.
_ATTACHED_AFTER = re.compile(r"\s?(?:的|之)?\s?")
_ATTACHED_BEFORE = re.compile(r"\s+(?:for|of|on|fits?|fitting)\s+(?:(?:the|my|an?|your|this)\s+)?")
#: A clause that puts what was said before aside ("先不管这个", "这个先不说", "anyway").
_DISMISSAL = re.compile(
    r"\s*(?:(?:那|但|不过)?(?:这个|那个|这些)?(?:先|暂且|暂时)?(?:不管|不说|不提|放一边|放一放)"
    r"(?:了)?(?:这个|那个|这些)?(?:了|吧|哈)?|anyway|anyways|never mind that|that aside|"
    r"leaving that aside|but anyway)\s*"
)


#: A past time opening a clause: what follows is something the asker did before.
_PAST_TIME = re.compile(
    r"\s*(?:上次|上回|那次|那天|之前|以前|前几天|前阵子|去年|上个月|上周|上礼拜"
    r"|last time|the other day|last (?:week|month|year))"
)


def _situation_clauses(gate_text: str) -> list[tuple[int, int]] | None:
    """The clauses of a question that may tell the asker's situation beside the one that
    asks: a few of them, one naming a product; None otherwise."""
    clauses = _clauses(gate_text)
    if not 2 <= len(clauses) <= _MAX_SITUATION_CLAUSES or not any(
        PRODUCT_MASK in gate_text[s:e] or UNKNOWN_MASK in gate_text[s:e] for s, e in clauses
    ):
        return None
    return clauses


#: A clause-final particle of a yes-no question about what happened (发了没, 到了没有).
_ASKED_HAPPENED = re.compile(r"(?:没|没有)\s*$")
#: A-not-A, the Chinese yes-no question (是不是, 会不会, 有没有, 可不可以).
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1")


def _asks(text: str, start: int, end: int) -> bool:
    """Whether the clause ``text[start:end]`` is itself a question: a question word or
    particle, A-not-A (会不会), a question mark after it, or a final 没 (发了没)."""
    return (
        _QUESTION_WORD.search(text, start, end) is not None
        or text[end : end + 1] in {"?", "？"}
        or _ASKED_HAPPENED.search(text[start:end]) is not None
        or _A_NOT_A.search(text, start, end) is not None
    )


def _approximate_numeral(text: str, hit: Hit) -> bool:
    """Whether ``hit`` opens with the 几 of an approximate numeral (十几个小时, 好几天:
    "ten-odd", "several"): a stated amount, not the question word 几 its phrase asks by."""
    return hit.text.startswith("几") and hit.start > 0 and text[hit.start - 1] in "十好"


def _clause_boundaries(boundaries: frozenset[int], start: int, end: int) -> frozenset[int]:
    """The word boundaries of the clause ``start:end``, counted from its start."""
    return frozenset(b - start for b in boundaries if start <= b <= end) | {0, end - start}


def _dismisses(text: str, start: int, end: int) -> bool:
    """Whether the clause ``text[start:end]`` opens with a dismissal standing on its own
    (a space after it, or the clause's end: "这个先不说了 iphone 16…")."""
    found = _DISMISSAL.match(text, start, end)
    return found is not None and (found.end() == end or text[found.end() - 1].isspace())


_FIRST_PERSON = re.compile(r"我|俺|咱|(?<![a-z])(i|i'm|i’m|we|we're)(?![a-z])")
#: The asker's possessive: a clause about someone or something of theirs ("my daughter has
#: to carry her laptop") tells their situation as a first-person one does.
_ASKERS_OWN = re.compile(r"(?<![a-z])(my|our)(?![a-z])")
#: Words for the asker's own unit of the product asked, pointing back to it (我的那块,
#: 我这台, 寄给我的, "mine", "my unit", "the one I've been using"): a clause about it is
#: about their device, not a situation beside the question.
_OWN_UNIT = re.compile(
    r"(?:我|俺)(?:们)?(?:家)?(?:的)?(?:这|那)(?:一)?(?:台|部|个|块|辆|副|只|对|盒)"
    r"|(?:寄|发|送|卖)给(?:我|俺)的|(?:我|俺)(?:收到|拿到|买到|到手)的"
    r"|(?:我|俺)的(?=是|只|才|都|就|也|还|一直|总是|老是|经常|已经|现在|好像|居然|竟然)"
    r"|(?:下单|买|订|收到|拿到|到手|寄来|发来|提)的(?:那|这)(?:一)?(?:台|部|个|块|辆|副|只|对|件|款)"
    r"|发错|漏发|少发|错发|缺件"
    r"|(?<![a-z])(?:mine|my (?:unit|one|copy|set|device)|the one (?:that )?(?:i|we)(?![a-z]))"
)
#: The product as the subject of a verb of capability (§支持, "does the § support"): the
#: question may ask what the device does, not what the store accepts.
_DEVICE_CAPABILITY = re.compile(
    # (a whole name, from its first character; not one bought: 买iPhone 15 支持微信支付吗)
    r"(?<![买订购§])(?<!§ )(?<!买 )(?<!下单)(?<!\bbuy )(?<!\bbuying )"
    r"§[§\s]*?(?:的)?\s*(?:也|还)?(?:支持|兼容|能绑|可以绑)"
    r"|\b(?:does|do|can|will|is|are)\s+(?:the\s+|my\s+|a\s+)?§[§\s]*?\s(?:support|supports|"
    r"work with|works with|run|compatible with)\b"
)
#: "Apple Watch Series 9 Hermès edition": a word with "edition" right after a product's name.
_EDITION_AFTER_NAME_LATIN = re.compile(r"§\s+([a-zà-ÿ]{2,})\s+edition\b")
#: An inch word right after a number (16寸, 16 inch, 16-inch).
_INCH_AFTER = re.compile(r"\s?(?:寸|英寸|吋|-?inch(?:es)?\b|\")")
_LAST_NUMBER = re.compile(r"(\d+)\D*$")
#: What makes a clause a question: a question word or particle (几, but not 好几 or 十几:
#: "several").
_QUESTION_WORD = re.compile(
    r"什么|啥|哪|谁|多少|(?<![好十])几|怎么|如何|吗|么|嘛|呢"
    r"|(?<![a-z])(what|which|how|why|whether|if)(?![a-z])"
)
#: Clauses end at punctuation and, in chat, at a space between two Chinese characters:
#: written Chinese has no spaces between words, so such a space is a pause between clauses
#: (我下个月去旅游 想买个…); a space next to a Latin word or a number only separates words.
#: The punctuation that ends a clause.
_CLAUSE_PUNCTUATION = r"[,，.。?？!！;；]"
_CLAUSE_SPLIT = re.compile(_CLAUSE_PUNCTUATION + r"|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


#: A word written in capitals (MY, MBP), two to four letters.
_CAPITAL_WORD = re.compile(r"(?<![A-Za-z])[A-Z]{2,4}(?![A-Za-z])")


def _named_elsewhere(words: Sequence[Hit], every: Sequence[Hit], start: int, end: int) -> bool:
    """Whether each attribute ``words`` name is named by a word outside ``start:end``."""
    outside = {parse_label(h.label).name for h in every if h.end <= start or end <= h.start}
    return all(parse_label(h.label).name in outside for h in words)


def _capitals(text: str) -> frozenset[str]:
    """The words ``text`` writes in capitals, lower-cased; none when it has no lower-case
    letter (a question typed in capitals says nothing by them)."""
    if not any(ch.islower() for ch in text):
        return frozenset()
    return frozenset(m.group().lower() for m in _CAPITAL_WORD.finditer(text))


def _clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of the clauses of ``text``, split at punctuation and at spaces
    between Chinese characters."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_SPLIT.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


UNKNOWN_WORD_CHECK = True
#: What English contractions leave after the apostrophe.
_CONTRACTION_TAILS = frozenset(("ve", "re", "ll", "d", "s", "t", "m"))
#: English contractions typed without the apostrophe: a negated auxiliary (dont, isnt,
#: havent; the closed class of auxiliaries) or a pronoun with its verb (im, youre, ive);
#: "ill", "wed", "well", "shed" are words of their own and are left to the dictionary.
_BARE_CONTRACTION = re.compile(
    r"(?:do|does|did|is|are|was|were|have|has|had|ca|wo|should|could|would|must|need|ai)nt"
    r"|im|ive|youre|youve|youll|theyre|theyve|weve|thats|whats|wheres|hows|theres|itll|hes|shes"
)
#: Laughter typed in chat (haha, hehe, lol, lmao): says nothing about the question.
_LAUGHTER = re.compile(r"(?:ha|he|hi|ho|ja){2,}h?|l+o+l+(?:o+l+)*|lmf?a+o+|rofl")
#: A stated length of time: in a policy question it is the rule's own period to confirm
#: ("return within 7 days", "is the warranty 2 years?"), not a value of another class.
_DURATION = re.compile(
    r"(?<![\d.])\d+\s*-?\s*(?:days?|weeks?|months?|years?|yrs?|天|周|星期|个月|月|年)(?![a-z])"
)


#: Currency codes a catalog may give values in.
_CURRENCIES = frozenset(("CNY", "USD", "EUR", "GBP", "JPY", "HKD"))
#: A bare amount asked to be confirmed: "是6999吗", "卖多少 1499吗", "is it 5999?". Three
#: digits or more, so a storage size or screen size written without its unit is never
#: taken for it.
_STATED_AMOUNT = re.compile(
    r"(?:是|要|卖|多少|\bis(?: it)?|\bfor)\s*(\d{3,7}(?:\.\d+)?)\s*(?=吗|么|嘛|呢|\?|？|$)"
)


#: A four-digit year right after a name (a space between or none), then 款 ("model"),
#: or the end of the word: never 年 or a month (a date), nor more digits or letters.
#: Words right before a bracketed name: "the pro max (iphone 15)".
_BRACKETED_FAMILY = re.compile(r"(?<![a-z0-9])((?:[a-z]+ ){0,2}[a-z]+) ?\(([^()]{2,40})\)")
_MODEL_YEAR = re.compile(r" ?((?:19|20)\d\d)(?:款|(?![\d.a-z年月/-]))")


def _listed_value_words(
    specs: Mapping[str, Any], normaliser: TextNormaliser, categories: set[str]
) -> dict[str, str]:
    """Each text a product's specs list as a value ("深青色 Teal": 深青色 and teal),
    normalised, with the one attribute listing it (a text two attributes list, or a
    category word, is left out)."""
    owners: dict[str, set[str]] = {}
    for attribute, spec in specs.items():
        value = spec.get("value") if isinstance(spec, Mapping) else None
        if not isinstance(value, (list, tuple)):
            continue
        for item in value:
            text = str(item)
            if any(ch.isdigit() for ch in text):
                continue
            cjk = "".join(_CJK_ONLY.findall(text))
            latin = normaliser.normalise(_CJK_ONLY.sub(" ", text))
            for part in (cjk, latin):
                if part and part not in categories:
                    owners.setdefault(normaliser.normalise(part), set()).add(attribute)
    return {text: next(iter(names)) for text, names in owners.items() if len(names) == 1}


def _spec_numbers(spec: Any) -> set[float]:
    """Every number a spec gives (its value, each variant's, a text value's digits)."""
    out: set[float] = set()
    stack = [spec]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(v for k, v in item.items() if k in ("value", "values") or k != "note")
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, (int, float)):
            out.add(float(item))
        elif isinstance(item, str):
            out.update(float(n) for n in _NUMBER.findall(item))
    return out


#: A stated number asked to be confirmed: the question ends right after it, or a question
#: particle or tag follows.
_CONFIRMING = re.compile(r"\s*(?:吗|嘛|么|对吗|对吧|是吧|[?？]|(?:right|correct)\b|$)")


def _listed_value_pattern(words: Mapping[str, str]) -> re.Pattern[str]:
    """The listed texts as whole words, the longest first."""
    forms = sorted(words, key=len, reverse=True)
    return re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(f) for f in forms) + r")(?![a-z])")


def _repeated_model_numbers(
    masked: str, norm: str, mentions: Sequence[Mention], product: str
) -> list[Hit]:
    """Numbers standing alone (no letter, digit or unit glued on) outside the names that
    equal the model number a mention of ``product`` ends in: after 苹果16大杯 a bare 16 is
    the base model, and after 和 or "vs" a number is another product."""
    own = {
        m.group()
        for mention in mentions
        if mention.product_id == product
        and (m := _TRAILING_NUMBER.search(norm, mention.start, mention.end)) is not None
        and m.end() == mention.end
    }
    if not own:
        return []
    return [
        h
        for h in _whole_numbers(masked)
        if h.text in own
        and _ALONE.match(masked, h.end)
        and not _LATIN_OR_DIGIT.match(masked[h.start - 1 : h.start])
        and not _COORDINATED.search(masked[max(0, h.start - 8) : h.start])
    ]


_TRAILING_NUMBER = re.compile(r"(?<![\d.])\d+$")
#: A word joining two things compared or chosen from, right before a number.
_COORDINATED = re.compile(r"(和|跟|与|或者?|还是|比|对比|(?<![a-z])(vs\.?|and|or|than))\s*$")


#: What may follow a number that stands alone: a Chinese word that is no unit or counter.
_ALONE = re.compile(r"(?![a-z\d.%\"寸英毫千万百十个块元年月日号天克斤瓦米代款]|\s*(?:gb?|tb?)\b)")
_LATIN_OR_DIGIT = re.compile(r"[a-z\d.]")


#: A generation said right after a name: "11代" (the normaliser's form of gen 11,
#: 11th gen, 第11代, 第十一代), a space between or none.
_GENERATION_AFTER = re.compile(r" ?(\d+) ?代")
#: ... or right before it ("第11代x1 carbon").
_GENERATION_BEFORE = re.compile(r"(?<![\d.])(\d+) ?代 ?$")
_GENERATION = re.compile(r"(?<![\d.])(\d+) ?代")


def _named_generations(raw: Mapping[str, Any], normaliser: TextNormaliser) -> frozenset[str]:
    """The generation numbers a catalog product's names and note write (Gen 12 → 12)."""
    texts = [str(n) for names in raw.get("names", {}).values() for n in names]
    texts.append(str(raw.get("note", "")))
    return frozenset(
        match.group(1)
        for text in texts
        for match in _GENERATION.finditer(normaliser.normalise(text))
    )


def _release_year(spec: Any) -> str | None:
    value = spec.get("value") if isinstance(spec, Mapping) else None
    match = re.match(r"(\d{4})-", value) if isinstance(value, str) else None
    return match.group(1) if match else None


def _whole_numbers(text: str) -> list[Hit]:
    """Every number of ``text`` (digits not inside another number)."""
    return [Hit("number", m.start(), m.end(), m.group()) for m in _NUMBER.finditer(text)]


#: A code in a text value: letters glued to a number (a17, h2, 9000s) or a version (4.0).
_CODE = re.compile(r"(?<![a-z0-9.])([a-z]*)(\d+(?:\.\d+)*[a-z]*)(?![a-z0-9])")


_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
#: A hint written in Chinese characters only: a word, not a pattern.
_CJK_ONLY = re.compile(r"[\u4e00-\u9fff]+")


def _value_initials(specs: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """product → the initial of a value its specs vary by → the value's words, where
    only one of its values has that initial (performance → p; long_range → "long range")."""
    out: dict[str, dict[str, str]] = {}
    for product_id, product_specs in specs.items():
        by_letter: dict[str, set[str]] = {}
        for spec in product_specs.values():
            if isinstance(spec, Mapping) and isinstance(spec.get("values"), Mapping):
                for value in spec["values"]:
                    words = str(value).replace("_", " ").lower()
                    if words[:1].isascii() and words[:1].isalpha():
                        by_letter.setdefault(words[0], set()).add(words)
        out[product_id] = {k: next(iter(v)) for k, v in by_letter.items() if len(v) == 1}
    return out


def _written_numbers(spec: Any) -> frozenset[str]:
    """The numbers a spec's text values and note write ("WR50", "to 50 m": 50)."""
    if not isinstance(spec, Mapping):
        return frozenset()
    texts = [*_spec_texts_of(spec), str(spec.get("note", "")).lower()]
    return frozenset(n for t in texts for n in re.findall(r"\d+(?:\.\d+)?", t))


def _spec_texts_of(spec: Any) -> list[str]:
    """The text values of one product's spec (every variant's, lists item by item)."""
    if not isinstance(spec, Mapping):
        return []
    values = [spec.get("value")]
    if isinstance(spec.get("values"), Mapping):
        values += [v.get("value") for v in spec["values"].values() if isinstance(v, Mapping)]
    out: list[str] = []
    for value in values:
        items = value if isinstance(value, (list, tuple)) else [value]
        out += [unicodedata.normalize("NFKC", i).lower() for i in items if isinstance(i, str)]
    return out


#: The model code a name ends with (the m3 of "macbook pro 14寸m3").
_NAME_CODE = re.compile(r"(?<![a-z\d])[a-z]+\d+$")


def _value_codes(spec: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The codes a spec's own text values write: whole (h2, a18, 9000s), and the numbers
    a value writes alone (the 17 of iOS 17, the 4.0 of HarmonyOS 4.0)."""
    texts = _spec_texts_of(spec)
    whole = frozenset(m.group(1) + m.group(2) for t in texts for m in _CODE.finditer(t))
    bare = frozenset(m.group(2) for t in texts for m in _CODE.finditer(t) if not m.group(1))
    return whole, bare


def _spec_codes(masked: str, codes: tuple[frozenset[str], frozenset[str]]) -> list[Hit]:
    """Codes of the question that a spec's own text values write (``_value_codes``):
    the whole code or, where the value writes the number alone, its number after any
    letters."""
    whole, bare = codes
    return [
        Hit("code", m.start(2), m.end(2), m.group(0))
        for m in _CODE.finditer(masked)
        if m.group(1) + m.group(2) in whole or m.group(2) in bare
    ]


def _own_number(spec: Any, constraints: Sequence[tuple[str, str]] = ()) -> float | None:
    """A spec's single numeric value: its value, or for a spec ``by`` a key, the value of
    the variant the question names ("长续航全驱版续航是688吗"); none when it names none."""
    if not isinstance(spec, Mapping):
        return None
    if "by" in spec:
        chosen = dict(constraints).get(str(spec["by"]))
        variant = spec.get("values", {}).get(chosen) if chosen is not None else None
        return _own_number(variant) if isinstance(variant, Mapping) else None
    value = spec.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _stated_amounts(text: str) -> list[Hit]:
    return [Hit("amount", m.start(1), m.end(1), m.group(1)) for m in _STATED_AMOUNT.finditer(text)]


def _durations(text: str) -> list[Hit]:
    return [Hit("duration", m.start(), m.end(), m.group()) for m in _DURATION.finditer(text)]


_CAMEL_WORD = re.compile(r"(?<![A-Za-z])[A-Z]?[a-z]+[A-Z][A-Za-z]*(?![A-Za-z])")


def _blank_words(text: str, words: frozenset[str]) -> str:
    """``text`` with each of ``words`` (as a whole Latin word) blanked, length kept."""
    for word in words:
        text = re.sub(
            rf"(?<![a-z]){re.escape(word)}(?![a-z])", lambda m: "_" * len(m.group()), text
        )
    return text


def _blank_spans(text: str, spans: Sequence[tuple[int, int]], blank: str = "_") -> str:
    """``text`` with each span blanked, length kept."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = blank * (end - start)
    return "".join(chars)


_LATIN_WORD = re.compile(r"[a-z]{2,}")


def _spec_values(
    catalog: Mapping[str, Any],
) -> Iterator[tuple[Mapping[str, Any], str, Mapping[str, Any]]]:
    """(product, attribute, value) for every value the catalog's specs give: a spec's
    own, or each of its variants' (a spec ``by`` a key)."""
    for raw in catalog.get("products", ()):
        for attribute, spec in raw.get("specs", {}).items():
            if not isinstance(spec, Mapping):
                continue
            values = [spec] if "value" in spec else list(spec.get("values", {}).values())
            for value in values:
                if isinstance(value, Mapping):
                    yield raw, str(attribute), value


def _spec_units(
    catalog: Mapping[str, Any], known_units: frozenset[str] = frozenset()
) -> dict[str, dict[str, frozenset[str]]]:
    """unit → attribute → categories whose specs give that attribute in that unit. A unit
    no spec gives as its ``unit`` but a spec's note states after a number ("water
    resistant to 50 m") types that attribute too, when it is one of ``known_units`` (the
    lexicon's unit table); a unit some spec does use is left to the specs."""
    found: dict[str, dict[str, set[str]]] = {}
    noted: dict[str, dict[str, set[str]]] = {}
    for raw, attribute, value in _spec_values(catalog):
        category = str(raw.get("category", ""))
        unit = value.get("unit")
        if unit:
            found.setdefault(str(unit), {}).setdefault(attribute, set()).add(category)
        for match in _NOTED_UNIT.finditer(str(value.get("note", ""))):
            if match.group(1) in known_units:
                by = noted.setdefault(match.group(1), {})
                by.setdefault(attribute, set()).add(category)
    for unit, by_attribute in noted.items():
        if unit not in found:
            found[unit] = by_attribute
    return {u: {a: frozenset(c) for a, c in by.items()} for u, by in found.items()}


def _strings_in(value: Any) -> list[str]:
    """Every string in a catalog entry's nested mappings and lists, keys and values."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in (str(k), *_strings_in(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings_in(v)]
    return []


def _catalog_text_words(catalog: Mapping[str, Any]) -> frozenset[str]:
    """Latin words of the catalog's own spec texts and notes (the usb of "USB-C cable"):
    a word the catalog writes is understood, never a misspelt variant."""
    words: set[str] = set()
    for _, _, value in _spec_values(catalog):
        texts = value.get("value")
        items = list(texts) if isinstance(texts, (list, tuple)) else [texts]
        for text in (*items, value.get("note")):
            if isinstance(text, str):
                words.update(_LATIN_WORD.findall(text.lower()))
    return frozenset(words)


def _value_text_units(catalog: Mapping[str, Any]) -> dict[str, set[str]]:
    """attribute → the units of its text values written as a number and a unit
    ("128GB" gives gb to storage)."""
    found: dict[str, set[str]] = {}
    for raw in catalog.get("products", ()):
        for attribute, spec in raw.get("specs", {}).items():
            if not isinstance(spec, Mapping) or "value" not in spec:
                continue
            value = spec["value"]
            for text in value if isinstance(value, (list, tuple)) else [value]:
                match = _NUMBER_AND_UNIT.match(str(text))
                if match:
                    found.setdefault(str(attribute), set()).add(match.group(1).lower())
    return found


def _contains_word(phrase: str, word: str) -> bool:
    """Whether ``word`` is in ``phrase``: as a whole Latin word, or anywhere in Chinese."""
    if word.isascii():
        return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", phrase) is not None
    return word in phrase


def _spec_value_texts(catalog: Mapping[str, Any]) -> dict[str, list[str]]:
    """attribute → the catalog's text values of it that name a thing by a model code
    (letters, then a number: "A18", "Apple H2", "IP68", "HarmonyOS 4.0"), each once, in
    catalog order; a number with its unit after it ("128GB") is the units' business."""
    found: dict[str, dict[str, None]] = {}
    for _, attribute, value in _spec_values(catalog):
        text = value.get("value")
        # A list names things (a box's 70W adapter), not a value of the attribute.
        if isinstance(text, str) and _MODEL_CODE.search(text):
            found.setdefault(attribute, {})[text.lower()] = None
    return {a: list(texts) for a, texts in found.items()}


#: A model code inside a text value: letters before a number ("A18", "IP68", "iOS 18").
_MODEL_CODE = re.compile(r"[A-Za-z]\s?\d")


def _noted_units(catalog: Mapping[str, Any], known_units: frozenset[str]) -> dict[str, set[str]]:
    """unit → the attributes whose spec notes state a number in it ("or 80,000 km")."""
    found: dict[str, set[str]] = {}
    for _, attribute, value in _spec_values(catalog):
        for match in _NOTED_UNIT.finditer(str(value.get("note", ""))):
            if match.group(1) in known_units:
                found.setdefault(match.group(1), set()).add(attribute)
    return found


_NUMBER_AND_UNIT = re.compile(r"^\d+(?:\.\d+)?\s*([A-Za-z]{1,4})$")
#: A number and its unit in a spec's note ("max depth 6 m").
_NOTED_UNIT = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*\s*([A-Za-z]+)\b")


def completed_names(names: Sequence[str], all_names: Sequence[str]) -> list[str]:
    """A short name of a product continued by the rest of a longer one: from "X1 Carbon"
    and "ThinkPad X1 Carbon Gen 12" also "X1 Carbon Gen 12" (the longer name without
    the words before the shorter one), unless some product already has that name."""
    taken = {n.lower() for n in all_names}
    out: list[str] = []
    for short in names:
        key = short.lower()
        for long_name in names:
            lower = long_name.lower()
            start = lower.find(key)
            if start <= 0 or start + len(key) >= len(lower) or lower[start - 1] != " ":
                continue
            candidate = long_name[start:]
            if candidate.lower() not in taken and candidate not in out:
                out.append(candidate)
    return out


def _not_starting_inside(
    hits: Sequence[Hit], spans: Sequence[tuple[int, int, str | None]]
) -> list[Hit]:
    """Drop a cue that starts inside a constraint value's phrase and runs past it: in
    "加充电盒总续航多久" the 充电 of the charging case (充电盒) starts no charging-time cue.
    A cue of the attribute the constraint itself names stays (保修多久 after 电池保修)."""
    if not spans:
        return list(hits)
    # Only spans starting at most the longest span's length before a cue can hold its
    # start: looked up by start, not scanned for every cue.
    ordered = sorted(spans, key=lambda span: span[0])
    starts = [s for s, _, _ in ordered]
    longest = max(e - s for s, e, _ in ordered)
    return [
        h
        for h in hits
        if not any(
            s < h.start < e < h.end and parse_label(h.label).name != topic
            for s, e, topic in ordered[
                bisect_left(starts, h.start - longest) : bisect_left(starts, h.start)
            ]
        )
    ]


#: What may stand between a stated value and the noun of its key ("256G的存储").
_VALUE_NOUN_GAP = frozenset(" 的of")
#: How many of them at most.
_VALUE_NOUN_REACH = 4


def _without_value_nouns(hits: Sequence[Hit], values: Sequence[Hit], text: str) -> list[Hit]:
    """Drop the noun of a stated value's own key when another cue asks the question: in
    "with 1 TB storage, how much?" or "256G的存储多少钱" the word "storage" (存储) names
    the key of the value right beside it, so it says which variant, and "how much" says
    what is asked. Alone ("does it come with 1TB storage?") the noun stays the question."""
    if not values:
        return list(hits)
    # Only values within the gap's reach can be beside a cue: found by their ends and
    # starts, not by a scan of every value for every cue.
    by_end: dict[int, list[Hit]] = {}
    by_start: dict[int, list[Hit]] = {}
    for value in values:
        by_end.setdefault(value.end, []).append(value)
        by_start.setdefault(value.start, []).append(value)
    reach = _VALUE_NOUN_REACH

    def near(hit: Hit) -> list[Hit]:
        found = [v for at in range(hit.start - reach, hit.start + 1) for v in by_end.get(at, ())]
        found += [v for at in range(hit.end, hit.end + reach + 1) for v in by_start.get(at, ())]
        return found

    def beside(hit: Hit) -> bool:
        name = parse_label(hit.label).name
        for value in near(hit):
            if parse_label(value.label).name != name:
                continue
            if value.end <= hit.start:
                gap = text[value.end : hit.start]
            elif hit.end <= value.start:
                gap = text[hit.end : value.start]
            else:
                continue
            if len(gap) <= _VALUE_NOUN_REACH and all(ch in _VALUE_NOUN_GAP for ch in gap):
                return True
        return False

    nouns = [h for h in hits if beside(h)]
    if not nouns:
        return list(hits)
    noun_ids = {id(h) for h in nouns}
    rest = [h for h in hits if id(h) not in noun_ids]
    others = {parse_label(h.label).name for h in rest} - {parse_label(h.label).name for h in nouns}
    return rest if others else list(hits)


def _without_cut_cues(hits: Sequence[Hit]) -> list[Hit]:
    """Drop a cue whose last word is part of a stated number's unit: in "battery 52.6
    watt-hours" the "hours" of "battery … hours" belongs to the unit watt-hours, so the
    number in its unit (a capacity), not the battery-life phrase, says what is asked."""
    units = [h for h in hits if parse_label(h.label).value == UNIT_VALUE_MARK]
    if not units:
        return list(hits)
    # Only units starting inside a cue can cut it: looked up by start, not scanned.
    units.sort(key=lambda u: u.start)
    starts = [u.start for u in units]
    return [
        h
        for h in hits
        if not any(
            h.end <= u.end and parse_label(u.label).name != parse_label(h.label).name
            for u in units[bisect_right(starts, h.start) : bisect_left(starts, h.end)]
        )
    ]


#: Words after "how much" that keep it a question of price ("how much is it", "how much
#: for the 256 GB"); any other word is the noun whose quantity is asked ("how much optical
#: zoom", "how much storage"), and a cue ending in "how much" is no reading of that noun.
_QUANTITY_FREE_WORDS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "does",
        "do",
        "did",
        "would",
        "will",
        "can",
        "could",
        "should",
        "for",
        "it",
        "its",
        "it's",
        "they",
        "them",
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "to",
        "u",
        "you",
        "ya",
        "ur",
        "your",
        "money",
        "cost",
        "costs",
        "altogether",
        "roughly",
        "approximately",
        "about",
        "around",
        "in",
        "on",
        "at",
        "now",
        "then",
        # Discourse particles and forms of address end a chat question, they are no noun
        # ("how much ah", "how much one lah", "how much only", "how much bro").
        "ah",
        "lah",
        "leh",
        "lor",
        "meh",
        "hor",
        "sia",
        "one",
        "only",
        "exactly",
        "again",
        "already",
        "eh",
        "huh",
        "ok",
        "okay",
        "pls",
        "plz",
        "please",
        "bro",
        "dude",
        "man",
        "sir",
        "boss",
        "dear",
        "yaar",
    ]
)
_NEXT_WORD = re.compile(r"\s*([a-z][a-z']*)")


def _without_quantity_heads(hits: Sequence[Hit], masked: str) -> list[Hit]:
    """Drop an English cue ending in a quantifier ("how much") that is followed by the
    noun it quantifies: "how much zoom" asks about the zoom, not a price."""
    out: list[Hit] = []
    for hit in hits:
        if hit.text.isascii() and hit.text.rstrip().endswith((" much", " many")):
            following = _NEXT_WORD.match(masked, hit.end)
            if following is not None and following.group(1) not in _QUANTITY_FREE_WORDS:
                continue
        out.append(hit)
    return out


def _lists_items(spec: Any) -> bool:
    """Whether a catalog spec's value is a list of things (in the box: a cable, a case)."""
    return isinstance(spec, Mapping) and isinstance(spec.get("value"), (list, tuple))


def _store_wide(spec: AttributeSpec, category: str | None) -> bool:
    """A policy that applies to the store but not to this product's category."""
    return (
        spec.kind == "policy"
        and STORE_SCOPE in spec.applies_to
        and (category is None or category not in spec.applies_to)
    )


def _product_varying_keys(specs: Mapping[str, Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """attribute → the constraint keys some product's spec of it varies by."""
    found: dict[str, set[str]] = {}
    for product_specs in specs.values():
        for attribute, spec in product_specs.items():
            if isinstance(spec, Mapping) and "by" in spec:
                found.setdefault(str(attribute), set()).add(str(spec["by"]))
    return {a: frozenset(keys) for a, keys in found.items()}


#: The ``applies_to`` entry of attributes.json for store-wide rules.
STORE_SCOPE = "store"


def _spec_texts(catalog: Mapping[str, Any]) -> dict[str, dict[str, frozenset[str]]]:
    """text → attribute → categories: the words of the catalog's text spec values
    ("陶瓷白 Ceramic White" gives 陶瓷白 and ceramic white), without numbers (a number
    with its unit is the units' business) and without one-letter or one-character words,
    and the model codes in any text value (the h2 of "Apple H2", ip68)."""
    found: dict[str, dict[str, set[str]]] = {}
    for raw in catalog.get("products", ()):
        category = str(raw.get("category", ""))
        for attribute, spec in raw.get("specs", {}).items():
            if not isinstance(spec, Mapping) or "value" not in spec:
                continue
            value = spec["value"]
            texts = list(value) if isinstance(value, (list, tuple)) else [value]
            for text in texts:
                if not isinstance(text, str):
                    continue
                # A model code of the value ("H2" of "Apple H2", "IP68"): letters, then
                # digits, as one word; a number with its unit is the units' business.
                for code in _CODE_WORD.findall(text.lower()):
                    found.setdefault(code, {}).setdefault(str(attribute), set()).add(category)
                if any(ch.isdigit() for ch in text):
                    continue
                for part in _SCRIPT_RUN.findall(text):
                    part = part.strip()
                    if len(part) >= (2 if not part.isascii() else 4):
                        found.setdefault(part, {}).setdefault(str(attribute), set()).add(category)
    return {t: {a: frozenset(c) for a, c in by.items()} for t, by in found.items()}


_CODE_WORD = re.compile(r"(?<![a-z0-9])[a-z]+\d+[a-z]*(?![a-z0-9])")
_SCRIPT_RUN = re.compile(r"[\u3400-\u9fff]+|[A-Za-z][A-Za-z '\-]*[A-Za-z]")

_LONG_DIGITS = re.compile(r"\d{5,}")


def _is_cjk_word(word: str) -> bool:
    return 2 <= len(word) <= 6 and all("\u3400" <= ch <= "\u9fff" for ch in word)


def _bought_elsewhere(text: str, mention: Mention) -> bool:
    """Whether ``mention`` stands in a clause about another shop ("在别家买",
    "bought at another store") that a later clause follows: the asker's story."""
    start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, mention.start)), default=0)
    end_match = _CLAUSE_END.search(text, mention.end)
    if end_match is None or not text[end_match.end() :].strip(" ?？!！.。"):
        return False
    return _ELSEWHERE.search(text, start, end_match.start()) is not None


_CLAUSE_END = re.compile(_CLAUSE_PUNCTUATION)
_ELSEWHERE = re.compile(
    r"别家|别的(店|商家|平台|网站)|其[他它](店|商家|平台|网站)|外面(买|的店)"
    r"|\b(another|other|a different) (store|shop|seller|site|retailer)s?\b|\belsewhere\b"
)


def _unknown_names(text: str, unknown: Sequence[Mention]) -> set[str]:
    """The distinct products the unknown mentions name: mentions only spaces apart are
    one name (戴森 吹风机, "dji drone": a brand and its product kind)."""
    names: set[str] = set()
    start = end = -1
    for mention in sorted(unknown, key=lambda m: (m.start, m.end)):
        if start >= 0 and (mention.start <= end or not text[end : mention.start].strip()):
            end = max(end, mention.end)
            continue
        if start >= 0:
            names.add(text[start:end])
        start, end = mention.start, mention.end
    if start >= 0:
        names.add(text[start:end])
    return names


def _mask(text: str, mentions: Sequence[Mention], mark: str) -> str:
    if not mentions:
        return text
    chars = list(text)
    for mention in mentions:
        for i in range(mention.start, mention.end):
            if not chars[i].isspace():
                chars[i] = mark
    return "".join(chars)


def _touches_any(hit: Hit, others: Sequence[Hit]) -> bool:
    """Whether ``hit`` overlaps one of ``others`` (a policy's own period: "within 7 days"
    states the rule's period, never a variant of it)."""
    return any(o.start < hit.end and hit.start < o.end for o in others)


def _series_head(name: str, brand_words: frozenset[str] | set[str]) -> str:
    """The first Latin word of a catalog name that is not its brand ("galaxy" of
    "Samsung Galaxy S24"), or ""."""
    return next((w for w in re.findall(r"[a-z]+", name.lower()) if w not in brand_words), "")


def _touches(mention: Mention, hits: Sequence[Hit]) -> bool:
    return any(h.start < mention.end and mention.start < h.end for h in hits)


#: The rules' decision, whether its product was named through the grammar, whether its
#: attribute was settled by a unit, the spans of stated values' nouns, and the short
#: forms the reader is shown as listed names (start, end, name).
_RulesDecision = tuple[
    SemanticDecision,
    bool,
    bool,
    tuple[tuple[int, int], ...],
    tuple[tuple[int, int, str], ...],
]


#: Numbers listed with a slash or 、 ("3/6/12"); before a duration (months, 期) the unit
#: written once after the last belongs to each. Matched whole, then the unit checked, so a
#: long list is read once (a lookahead for the unit would retry from every number).
_NUMBER_LIST = re.compile(r"(?<![\d.])\d+(?:\s*[/、]\s*\d+)++")
_DURATION_AFTER = re.compile(r"\s*(?:months?|个月|期|days?|天|weeks?|周|years?|年)")


def _outside_spans(hits: list[Hit], spans: Sequence[tuple[int, int]]) -> list[Hit]:
    """The hits outside every span, or all of them when none is outside."""
    outside = [h for h in hits if not any(s <= h.start and h.end <= e for s, e in spans)]
    return outside if outside else hits


#: A count of occasions (第1次用华为, "the 1st time", "for the 2nd time"): how often the
#: asker has done something, never a value of a product.
_OCCASION_COUNT = re.compile(
    r"第\d{1,2}(?:次|回|遍)|\b(?:1st|2nd|3rd|\d(?:th)) time\b|\b\d(?:st|nd|rd|th) (?:time|go)\b"
)


#: Words of buying and of a budget (a closed class of verbs and nouns).
_PURCHASE = re.compile(
    r"买|购|入手|拿下|到手|预算|价位|\b(?:buy|buying|bought|purchase|purchasing"
    r"|afford|budget|pick up|grab|find|deals?|offers?)\b"
    # "get one under 6000" buys; "get over 600 km" reaches a value
    r"|\b(?:get|getting|got)\b(?!\s+(?:over|under|above|below|more|less|at)\b)"
)
#: How far a bound may lie from the product's own values and still be read as one on them.
_MAGNITUDE = 10.0
#: After a bare number: no letter, percent or unit character glued to it (a number in
#: another unit, or a share, is no bound on the value).
_UNIT_GLUED = re.compile(r"\s*(?:[a-z%]|[\u4e00-\u9fff](?<![以之吗么嘛呢吧没不了啊呀的]))")


def _bare_after(text: str, end: int) -> bool:
    """Whether the number ending at ``end`` (after its bound's words) has no unit."""
    return _UNIT_GLUED.match(text, end) is None


def _numbers_in(spec: Any) -> list[float]:
    """Every numeric value a spec gives, of each variant it varies by."""
    if isinstance(spec, Mapping):
        if isinstance(spec.get("values"), Mapping):
            return [n for v in spec["values"].values() for n in _numbers_in(v)]
        return _numbers_in(spec.get("value"))
    if isinstance(spec, bool):
        return []
    if isinstance(spec, (int, float)):
        return [float(spec)]
    if isinstance(spec, list):
        return [n for v in spec for n in _numbers_in(v)]
    return []


def _unexplained_number(masked: str, explained: Sequence[Hit]) -> str | None:
    covered = bytearray(len(masked) + 1)
    for hit in explained:
        covered[hit.start : hit.end] = b"\x01" * (hit.end - hit.start)
    if "第" in masked or " time" in masked or " go" in masked:
        for count in _OCCASION_COUNT.finditer(masked):
            covered[count.start() : count.end()] = b"\x01" * (count.end() - count.start())
    for listed in _NUMBER_LIST.finditer(masked):
        start, end = listed.span()
        if _DURATION_AFTER.match(masked, end) and covered[end - 1]:
            # The last number is read with its unit (a duration): so is each before it.
            covered[start:end] = b"\x01" * (end - start)
    for index, ch in enumerate(masked):
        if ch.isdigit() and not covered[index]:
            end = index
            while end < len(masked) and (masked[end].isdigit() or masked[end] == "."):
                end += 1
            return masked[index:end]
    return None


def _with_listed(text: str, listed: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each short form the reader cannot read (app2, or 汉 read from
    context) shown as the listed name it stands for: the reader reads names, not
    initials or context; its attribute reading stays its own."""
    for start, end, name in sorted(listed, reverse=True):
        text = f"{text[:start]}{name}{text[end:]}"
    return text
