"""Which catalog product a question names, and whether it names one we do not sell.

Every catalog name and alias is normalised and tokenised, expanded with the lexicon's
name synonyms (iphone/ip/苹果, pro max/pm, ...) and brand prefixes, and put in a token
trie. A question is scanned left to right for the longest alias. A match is refused, and
recorded as an *unknown* product, when the words around it show that the user means a
sibling we do not sell: a variant word right after it ("Mate 60 RS", "小米14 Pro",
"Galaxy S24+") or another brand right before it ("小米15 Pro" is not an "iPhone 15 Pro").
A series word followed by a model number that is no alias ("iPhone 14", "Mate 70",
"MacBook Air M2", "Model S") is unknown too. A miss is always preferred to a wrong hit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from services.core.semantic.normalise import TextNormaliser, parse_chinese_numeral
from services.core.semantic.tokens import Token, Tokeniser
from services.core.semantic.transliteration import (
    edition_words,
    opens_a_word,
    vocabulary_openings,
)

_END = "\x00"
_SIZE_WORDS = frozenset({"寸", "吋", "inch"})
#: Measurement units: a number glued to one is a measure, never a model number.
_MEASURES = frozenset({"mm", "cm", "g", "kg", "w", "kw", "mah", "wh", "kwh", "hz", "gb", "tb"})
TokenTrie = dict[str, "TokenTrie | frozenset[str]"]
#: A name word, a space and a model code of one letter and a number ("aw s9").
_WORD_THEN_CODE = re.compile(r"(?<![a-z])([a-z]{2,})\s([a-z])(?=\d)")


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """The parts of a catalog product the matcher needs."""

    product_id: str
    category: str
    brand: str
    names: tuple[str, ...]
    #: The product's spec text (values and notes, lower case): the features it carries.
    spec_text: str = ""
    #: Edition words the product's catalog note gives it (焕新版 of "2023 refresh (焕新版)").
    editions: tuple[str, ...] = ()
    #: The screen size its specs give (6.1): said before the name it is the product's own.
    screen_sizes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of the normalised text that names a product (or a brand, or an unknown one)."""

    start: int
    end: int
    product_id: str | None = None
    reason: str = ""
    #: Named through the grammar (a variant nickname or letter, brand + model tail), not
    #: a listed alias: the second reader can only check its family.
    derived: bool = False
    #: For a short form the reader cannot read (an initialism: app2; a name read from
    #: context: 汉), the listed name it stands for; the reader is shown that name.
    listed: str = ""
    #: For a bare brand word: the category of the category word right after it (华为手表:
    #: a product of that brand and category, unnamed).
    category: str = ""


@dataclass(frozen=True, slots=True)
class ProductScan:
    products: tuple[Mention, ...]
    unknown: tuple[Mention, ...]
    brands: tuple[Mention, ...]
    #: Value initials glued to an initialism (the p of m3p): (start, end, value words).
    expansions: tuple[tuple[int, int, str], ...] = ()

    @property
    def product_ids(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for mention in self.products:
            if mention.product_id is not None:
                seen[mention.product_id] = None
        return tuple(seen)

    def spans(self) -> list[tuple[int, int]]:
        return [(m.start, m.end) for m in (*self.products, *self.unknown, *self.brands)]


def _trie_insert(trie: TokenTrie, key: Sequence[str], value: str) -> None:
    node = trie
    for token in key:
        child = node.setdefault(token, {})
        assert isinstance(child, dict)
        node = child
    existing = node.get(_END)
    values = existing if isinstance(existing, frozenset) else frozenset()
    node[_END] = values | {value}


class ProductMatcher:
    """Finds catalog products, unknown products and bare brand words in normalised text."""

    def __init__(
        self,
        entries: Sequence[CatalogEntry],
        *,
        normaliser: TextNormaliser,
        brand_words: Mapping[str, Sequence[str]],
        name_synonyms: Sequence[Sequence[str]],
        other_brand_words: Sequence[str],
        variant_suffixes: Sequence[str],
        filler_tokens: Iterable[str],
        droppable_words: Iterable[str] = (),
        suffix_exceptions: Iterable[str] = (),
        non_name_patterns: Iterable[str] = (),
        adjective_suffixes: Iterable[str] = (),
        category_words: Mapping[str, str] | None = None,
        variant_nicknames: Mapping[str, Sequence[str]] | None = None,
        feature_words: Mapping[str, Sequence[str]] | None = None,
        measure_words: Iterable[str] = (),
        configuration_words: Iterable[str] = (),
        value_initials: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """``feature_words``: a descriptor word of a description name (降噪) → the
        English forms a product's spec text writes the feature in (noise cancellation).
        ``measure_words``: how shoppers write measurement units (毫米, 克): a number glued
        to one after a series head is a measure, not a model number.
        ``configuration_words``: words for a variant's configuration (顶配) that may stand
        between a name and its variant nickname.
        ``value_initials``: product → the initial of a constraint value its specs vary by
        (only where one value has it) → the value's words: "m3p" is Model 3 Performance."""
        self._value_initials = {k: dict(v) for k, v in (value_initials or {}).items()}
        self._normaliser = normaliser
        self._categories = {e.product_id: e.category for e in entries}
        self._brand_of = {e.product_id: e.brand for e in entries}
        # The name a short form no name-reading reader can see is shown to it as (15超大杯).
        self._shown_name = {
            e.product_id: normaliser.normalise(e.names[0]) for e in entries if e.names
        }
        self._filler = frozenset(filler_tokens)

        words: set[str] = set()
        raw_phrases = [
            *(n for e in entries for n in e.names),
            *(w for ws in brand_words.values() for w in ws),
            *(w for group in name_synonyms for w in group),
            *variant_suffixes,
        ]
        for phrase in raw_phrases:
            words.update(_latin_words(normaliser.normalise(phrase)))
        initialisms = {
            name: found for e in entries for name in e.names if (found := camel_initialisms(name))
        }
        words.update(w for found in initialisms.values() for pair in found for w in pair[1:])
        # (name word, model letter) as names write them: "AW S9" → ("aw", "s").
        letter_pairs = {
            (m.group(1), m.group(2))
            for e in entries
            for name in e.names
            for m in _WORD_THEN_CODE.finditer(normaliser.normalise(name))
        }
        self.tokeniser = Tokeniser(words, letter_pairs)

        def key_of(phrase: str) -> tuple[str, ...]:
            return tuple(t.text for t in self.tokeniser.tokens(normaliser.normalise(phrase)))

        # by first token, longest first: looked up after every name
        configuration: defaultdict[str, list[tuple[str, ...]]] = defaultdict(list)
        for k in sorted({k for w in configuration_words if (k := key_of(w))}, key=len)[::-1]:
            configuration[k[0]].append(k)
        self._configuration_keys = {k: tuple(v) for k, v in configuration.items()}
        self._measure_keys = tuple(
            k for k in {key_of(w) for w in measure_words if not w.isascii()} if k
        )
        self._brand_keys = {
            brand: tuple(k for k in (key_of(w) for w in ws) if k)
            for brand, ws in brand_words.items()
        }
        self._suffix_keys = tuple(k for k in (key_of(s) for s in variant_suffixes) if k)
        # Indexed by the token that must come next: (part the name must end with, rest).
        by_next: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        for key in self._suffix_keys:
            for overlap in range(len(key)):
                by_next.setdefault(key[overlap], []).append((key[:overlap], key[overlap:]))
        self._suffix_by_next = {k: tuple(v) for k, v in by_next.items()}
        # 版 of "pro版": after the variant word a name ends with it is that variant's
        # edition ("16 pro版" is the 16 Pro), no further variant.
        self._edition_keys = frozenset(
            k for k in (key_of(w) for w in edition_words(variant_suffixes)) if k
        )
        suffix_starts = {k[0] for k in self._suffix_keys}
        # Phrases that begin with a variant word but are not one ("ultra wide camera").
        # Variant words that are also adjectives ("max wired charging speed"): a variant
        # unless an English spec phrase follows.
        self._adjective_suffixes = frozenset(w.lower() for w in adjective_suffixes)
        suffix_starts |= self._adjective_suffixes
        suffix_exceptions = tuple(suffix_exceptions)
        # where a Chinese word of the vocabulary may start (多重 of 多重, 续航)
        self._openings = vocabulary_openings(suffix_exceptions)
        phrase_keys = {key_of(p) for p in suffix_exceptions}
        self._phrase_starts = frozenset(k[0] for k in phrase_keys if k and k[0].isascii())
        exceptions: dict[str, list[tuple[str, ...]]] = {}
        for key in phrase_keys:
            if len(key) > 1 and key[0] in suffix_starts:
                exceptions.setdefault(key[0], []).append(key)
        self._suffix_exceptions = {k: tuple(v) for k, v in exceptions.items()}
        # Things that look like "series + number" but are values ("IP68" is no iPhone 68).
        self._non_names = tuple(re.compile(p) for p in non_name_patterns)
        synonym_keys = [
            tuple(k for k in (key_of(p) for p in group) if k) for group in name_synonyms
        ]

        droppable: set[tuple[str, ...]] = {
            k for k in (key_of(p) for p in droppable_words) if len(k) == 1
        }
        # Said where no name writes it (苹果手表系列9), a droppable word before a number
        # is passed over as the name's own would be dropped (苹果手表9).
        self._droppable_keys = tuple(
            sorted({k for k in (key_of(p) for p in droppable_words) if k}, key=len, reverse=True)
        )
        self._droppable_starts = frozenset(k[0] for k in self._droppable_keys)
        aliases: dict[tuple[str, ...], set[str]] = {}
        dropped_aliases: dict[tuple[str, ...], set[str]] = {}
        listed: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}
        # A name with a synonym put in (汉纯电版 for 汉EV) → the listed name it stands for,
        # shown to the name-reading second reader.
        synonym_names: dict[tuple[str, ...], str] = {}
        dropped_names: dict[tuple[str, ...], str] = {}
        plainly_dropped: set[tuple[str, ...]] = set()
        brand_key_set = {k for keys in self._brand_keys.values() for k in keys}
        brand_synonyms = {
            t for group in synonym_keys if brand_key_set & set(group) for k in group for t in k
        }
        for entry in entries:
            own_brands = self._brand_keys.get(entry.brand, ())
            for name in entry.names:
                base = key_of(name)
                if not base:
                    continue
                listed[base] = own_brands
                for variant in _expand(base, synonym_keys, own_brands):
                    aliases.setdefault(variant, set()).add(entry.product_id)
                    # a brand's synonym (水果 for 苹果) the reader knows from the brand
                    if variant != base and not (set(variant) - set(base)) & brand_synonyms:
                        synonym_names.setdefault(variant, normaliser.normalise(name))
                    for dropped in _dropped(variant, droppable):
                        dropped_aliases.setdefault(dropped, set()).add(entry.product_id)
                        if variant != base:
                            # "aw 9": a synonym and a dropped word, no piece of a name
                            # the reader knows; it is shown the name it stands for.
                            dropped_names.setdefault(dropped, normaliser.normalise(name))
                        else:
                            plainly_dropped.add(dropped)
        initialled: dict[tuple[str, ...], str] = {}
        # CamelCase name words by their capitals (AirPods → ap, FreeBuds → fb), also
        # squeezed with the next word's initial (ap pro 2 → app 2), as shoppers write
        # them: the grammar's (derived), only where the short form names one product.
        for entry in entries:
            for name in entry.names:
                base = key_of(name)
                for word, short, squeezed in initialisms.get(name, ()):
                    for key in _initialled(base, word, short, squeezed):
                        dropped_aliases.setdefault(key, set()).add(entry.product_id)
                        initialled[key] = name
        # A name with its series word left out counts only where it names one product
        # and is no alias of its own.
        # Shortened names are the grammar's, not listed: the second reader checks their
        # family only.
        self._shortened: set[tuple[str, ...]] = set()
        for key, ids in dropped_aliases.items():
            if len(ids) == 1 and key not in aliases:
                aliases[key] = ids
                self._shortened.add(key)
        self._initialled = {
            k: n
            for k, n in {
                **{k: n for k, n in dropped_names.items() if k not in plainly_dropped},
                **initialled,
            }.items()
            if k in self._shortened
        }
        self._synonym_names = {
            k: n for k, n in synonym_names.items() if k not in listed and len(aliases[k]) == 1
        }
        self._initial_words = frozenset(
            w for found in initialisms.values() for pair in found for w in pair[1:] if w
        )
        variant_tokens = {t for k in self._suffix_keys for t in k}
        brand_tokens = {t for keys in self._brand_keys.values() for k in keys for t in k}
        # "MY" of Model Y alone: an English word in lower case, so a product only when
        # written in capitals and in context (``context_mentions``; the extractor decides).
        capital: defaultdict[str, set[str]] = defaultdict(set)
        for key in listed:
            if _series_and_model_letter(key, variant_tokens, brand_tokens):
                capital[key[0][0] + key[1]].update(aliases.get(key, set()))
        self._capital_initials = {
            short: next(iter(ids))
            for short, ids in capital.items()
            if len(ids) == 1 and (short,) not in aliases and not _written_in(short, aliases)
        }
        abbreviated_in_context: dict[tuple[str, ...], str] = {}
        abbreviated = _abbreviated(
            aliases, listed, variant_tokens, brand_tokens, abbreviated_in_context, self._brand_of
        )
        glued: set[tuple[str, str]] = set()
        for key, ids in abbreviated.items():
            aliases[key] = ids
            self._shortened.add(key)
            # "特斯拉myp": a lettered initialism (my) and a value initial glued to it
            if len(ids) == 1 and key[-1].isalpha() and len(key[-1]) == 2:
                letters = self._value_initials.get(next(iter(ids)), {})
                glued.update((key[-1], letter) for letter in letters)
            # i16, m60: an initialism the reader cannot read; it is shown the name
            if len(ids) == 1:
                self._initialled.setdefault(key, self._shown_name.get(next(iter(ids)), ""))
        self.tokeniser.add_glued_pairs(glued)
        self._glued_words = (
            re.compile("|".join(rf"{re.escape(w + x)}(?![a-z])" for w, x in sorted(glued)))
            if glued
            else None
        )
        # The variant suffixes each brand's names write ("pro max" of Apple's).
        brand_suffixes: defaultdict[str, set[tuple[str, ...]]] = defaultdict(set)
        for key, ids in aliases.items():
            for suffix in self._suffix_keys:
                if _contains(key, suffix):
                    for product_id in ids:
                        brand_suffixes[self._brand_of[product_id]].add(suffix)
        self._brand_suffixes = {k: frozenset(v) for k, v in brand_suffixes.items()}
        self._alias_trie: TokenTrie = {}
        for key, ids in aliases.items():
            for product_id in ids:
                _trie_insert(self._alias_trie, key, product_id)
        self._build_grammar(entries, aliases, category_words or {}, variant_nicknames or {})
        # Description names (苹果降噪耳机二代): brand + feature word + category word +
        # generation; the products each feature word and generation fit.
        self._feature_keys = {
            key: tuple(f.lower() for f in forms)
            for word, forms in (feature_words or {}).items()
            if (key := key_of(word))
        }
        self._editions = {
            e.product_id: tuple(sorted({normaliser.normalise(w) for w in e.editions}, key=len))[
                ::-1
            ]
            for e in entries
            if e.editions
        }
        # 焕新3: an edition word and the product's model number name it, when no other
        # product has that edition and number.
        edition_names: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for e in entries:
            numbers = {
                n for name in e.names for n in re.findall(r"(?<![\d.])\d{1,3}(?![\d.])", name)
            }
            for word in e.editions:
                for number in numbers:
                    if key := key_of(word + number):
                        edition_names[key].add(e.product_id)
        for key, ids in edition_names.items():
            if len(ids) != 1 or key in aliases:
                continue
            (product_id,) = ids
            brand = self._brand_of[product_id]
            for full in (key, *((*b, *key) for b in self._brand_keys.get(brand, ()))):
                _trie_insert(self._alias_trie, full, product_id)
                # a short form the name-reading second reader is shown as the listed name
                self._shortened.add(full)
                self._initialled[full] = self._shown_name.get(product_id, "")
        self._described_by = {
            e.product_id: (
                e.brand,
                e.category,
                e.spec_text,
                frozenset(n for name in e.names for n in re.findall(r"\d+", name)),
            )
            for e in entries
        }
        # The words of each product's names (a nickname after a description must be one).
        self._described_words = {
            e.product_id: frozenset(w for name in e.names for w in key_of(name)) for e in entries
        }
        # A listed name that is a brand word and one Chinese character (比亚迪汉): the
        # character alone is also an everyday word (汉 of 汉字, 好汉), so it names the
        # product only in context (``context_mentions``; the extractor decides).
        one_char: dict[str, set[str]] = {}
        #: the brand word of the listed short name (比亚迪 of 比亚迪汉), for the reader
        self._brand_word: dict[str, str] = {}
        for entry in entries:
            for name in entry.names:
                key = key_of(name)
                for brand_key in self._brand_keys.get(entry.brand, ()):
                    rest = key[len(brand_key) :]
                    if (
                        key[: len(brand_key)] == brand_key
                        and len(rest) == 1
                        and len(rest[0]) == 1
                        and not rest[0].isascii()
                    ):
                        one_char.setdefault(rest[0], set()).add(entry.product_id)
                        self._brand_word[entry.product_id] = "".join(brand_key)
        # The sizes a product's own names carry before a size word (13 of "13-inch ...").
        sizes: dict[str, set[str]] = {}
        for entry in entries:
            for name in entry.names:
                key = key_of(name)
                for i in range(len(key) - 1):
                    if key[i][:1].isdigit() and key[i + 1] in _SIZE_WORDS | {"英"}:
                        sizes.setdefault(entry.product_id, set()).add(key[i])
            sizes.setdefault(entry.product_id, set()).update(entry.screen_sizes)
        self._name_sizes = {k: frozenset(v) for k, v in sizes.items()}
        # A name ending in the size its sibling names write before a size word ("M3
        # MacBook Pro 14", "14-inch MacBook Pro M3") with that size said first: "14in M3
        # MBP", "14寸 m3 mbp"; only where no other name is written so.
        size_keys: tuple[tuple[str, ...], ...] = (
            ("inch",),
            ("in",),
            ("寸",),
            ("英", "寸"),
            ("吋",),
        )
        sized: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for key, ids in aliases.items():
            if len(ids) != 1 or len(key) < 2 or key[-2] in _SIZE_WORDS:
                continue
            (product_id,) = ids
            if key[-1] in self._name_sizes.get(product_id, frozenset()):
                for size_word in size_keys:
                    sized[(key[-1], *size_word, *key[:-1])].add(product_id)
        for key, ids in sized.items():
            if len(ids) == 1 and key not in aliases:
                (product_id,) = ids
                _trie_insert(self._alias_trie, key, product_id)
                self._shortened.add(key)
                self._initialled.setdefault(key, self._shown_name.get(product_id, ""))
        self._context_names = {ch: next(iter(ids)) for ch, ids in one_char.items() if len(ids) == 1}
        # A name's words said in another order ("M3的14英寸MacBook Pro" for "14英寸MacBook
        # Pro M3"): the same words, each as often, as the names of one product, with a
        # number among them; every name and its size-first form, by their sorted words.
        bags: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for key, ids in (*aliases.items(), *sized.items()):
            if len(key) >= 3 and any(t[:1].isdigit() for t in key):
                bags[tuple(sorted(key))].update(ids)
        self._bags = {k: frozenset(v) for k, v in bags.items()}
        self._bag_words = frozenset(t for k in self._bags for t in k)
        self._longest_bag = max((len(k) for k in self._bags), default=0)
        # The same for a name's model letter and number with the words before them left
        # out ("s9" of "Apple Watch S9"): other brands' models are called so too (a
        # Galaxy S9), so only in context; shown to the reader as the product's first name.
        lettered_tails: dict[tuple[str, ...], set[str]] = {}
        for key in listed:  # the catalog's own names, not synonym-built ones ("i phone 15")
            ids = aliases.get(key, set())
            tail = key[-2:]
            if (
                len(key) > 2
                and tail[0].isascii()
                and tail[0].isalpha()
                # a model letter, or a series word ("series 9"): no variant word ("pro 2"
                # is a FreeBuds Pro 2 too) and no brand word
                and (
                    len(tail[0]) == 1
                    or (
                        len(tail[0]) >= 3
                        and tail[0] not in self._variant_words
                        and tail[0] not in brand_tokens
                    )
                )
                and tail[1][:1].isdigit()
            ):
                lettered_tails.setdefault(tail, set()).update(ids)
        first_name = {e.product_id: e.names[0] for e in entries if e.names}
        self._context_tails = {
            tail: (pid, first_name.get(pid, ""))
            for tail, ids in lettered_tails.items()
            if len(ids) == 1 and tail not in aliases and (pid := next(iter(ids)))
        }
        for tail, pid in abbreviated_in_context.items():
            # "m3": the Model 3 in a car's context; the MacBooks' chip is no car
            other_categories = {self._categories[i] for i in lettered_tails.get(tail, set())}
            if tail not in aliases and self._categories[pid] not in other_categories:
                self._context_tails[tail] = (pid, first_name.get(pid, ""))
        # "苹果s9手表": its own brand word before a model letter and number and its
        # category word after name it as the brand's codes do (联想X1笔记本).
        self._tail_codes = {
            (self._brand_of[pid], tail): pid
            for tail, (pid, _) in self._context_tails.items()
            if len(tail[0]) == 1
        }

        # Series heads: what precedes a model number in some alias ("iphone", "华为 mate",
        # "macbook air"), plus every brand word. A head followed by a model number that
        # is no alias names a product we do not sell.
        self._head_trie: TokenTrie = {}
        self._letter_heads: set[tuple[str, ...]] = set()
        for key in aliases:
            for cut in range(1, len(key)):
                head = key[:cut]
                if any(t[:1].isdigit() for t in head) or not _is_distinctive(head):
                    continue
                nxt = key[cut]
                if nxt[:1].isdigit() or (
                    len(nxt) == 1
                    and nxt.isalpha()
                    and cut + 1 < len(key)
                    and key[cut + 1][:1].isdigit()
                ):
                    _trie_insert(self._head_trie, head, "series")
                elif len(nxt) == 1 and nxt.isascii() and nxt.isalpha() and cut + 1 == len(key):
                    _trie_insert(self._head_trie, head, "series")
                    self._letter_heads.add(head)
        for brand, keys in self._brand_keys.items():
            for key in keys:
                _trie_insert(self._head_trie, key, f"brand:{brand}")
        others = tuple(normaliser.normalise(w) for w in other_brand_words)
        self._foreign_words = {
            brand: (
                *(
                    normaliser.normalise(w)
                    for o, ws in brand_words.items()
                    if o != brand
                    for w in ws
                ),
                *others,
            )
            for brand in {e.brand for e in entries} | set(brand_words)
        }
        self._foreign_window = 2 + max(
            (len(w) for ws in self._foreign_words.values() for w in ws), default=0
        )

    def _build_grammar(
        self,
        entries: Sequence[CatalogEntry],
        aliases: Mapping[tuple[str, ...], set[str]],
        category_words: Mapping[str, str],
        variant_nicknames: Mapping[str, Sequence[str]],
    ) -> None:
        """The product-name grammar beyond literal aliases, all derived from the data.

        - *model tails*: the part of an alias from its model number on ("60 pro" of
          "mate 60 pro", "pro 3" of "freebuds pro 3") when a series word of two or more
          letters precedes it, so "brand [category word] tail" names the product when
          exactly one product of that brand (and category) has that tail;
        - *variant letters*: the initial of a variant word, when no other variant word
          shares it ("s24u" = "s24 ultra"; "p" is pro or plus, so it stays unknown);
        - *variant nicknames* from the lexicon (大杯 → pro | plus, 超大杯 → pro max | ultra).
        """

        def key_of(phrase: str) -> tuple[str, ...]:
            return tuple(t.text for t in self.tokeniser.tokens(self._normaliser.normalise(phrase)))

        self._category_keys = {
            key: category for word, category in category_words.items() if (key := key_of(word))
        }
        variant_words = {t for k in self._suffix_keys for t in k}
        tails: dict[tuple[str, tuple[str, ...]], set[str]] = {}
        brand_of = {e.product_id: e.brand for e in entries}
        for key, ids in aliases.items():
            if key in self._initialled:
                continue  # "fbp 3" hides the variant word its initial stands for
            for cut in range(1, len(key)):
                if not key[cut][:1].isdigit():
                    continue
                before = key[cut - 1]
                if not (len(before) >= 2 or not before.isascii()):
                    break
                if any(t[:1].isdigit() for t in key[:cut]):
                    break
                for product_id in ids:
                    tail = key[cut:]
                    # "pro 3" without its "pro" names another model (FreeBuds 3): a bare
                    # tail only when the dropped word is a series word, not a variant.
                    if not any(before.endswith(v) for v in variant_words if len(v) >= 2):
                        tails.setdefault((brand_of[product_id], tail), set()).add(product_id)
                    # "freebuds pro 3": the words right before the number belong too
                    for back in range(cut - 1, 0, -1):
                        if key[back][:1].isdigit():
                            break
                        tails.setdefault((brand_of[product_id], key[back:]), set()).add(product_id)
                break
        self._tails = {k: frozenset(v) for k, v in tails.items()}
        # Model codes: a name's first words up to its model number when they are one
        # letter ("x 1" of "x 1 carbon"), with more words after them.
        codes: dict[tuple[str, tuple[str, ...]], set[str]] = {}
        for key, ids in aliases.items():
            if (
                key not in self._shortened
                and len(key) >= 3
                and key[:2] not in aliases
                and len(key[0]) == 1
                and key[0].isascii()
                and key[0].isalpha()
                and key[1].isdigit()
            ):
                for product_id in ids:
                    codes.setdefault((brand_of[product_id], key[:2]), set()).add(product_id)
        self._codes = {k: frozenset(v) for k, v in codes.items()}
        # (2: the context tails of letter and number, `_tail_codes`, are codes too)
        self._code_lengths = sorted({len(c) for _, c in codes} | {2}, reverse=True)
        self._tail_lengths = sorted({len(t) for _, t in tails}, reverse=True)
        # Each product's own model tails of a variant word and a number ("pro 3"): said
        # again beside its name they name it again.
        own_tails: dict[str, set[tuple[str, ...]]] = {}
        for (_, tail), ids in tails.items():
            if len(ids) == 1 and len(tail) == 2 and tail[1].isdigit() and tail[0] in variant_words:
                own_tails.setdefault(next(iter(ids)), set()).add(tail)
        self._own_tails = {k: tuple(sorted(v)) for k, v in own_tails.items()}
        # Variant words the catalog uses right after a model number ("15 pro", "s24 ultra");
        # a letter stands for one only when no other variant word (catalog or policy
        # suffixes) starts with it and it is no variant of its own ("15e").
        catalog_variants = {
            key[i + 1]
            for key in aliases
            for i in range(len(key) - 1)
            if key[i][:1].isdigit() and key[i + 1].isascii() and key[i + 1].isalpha()
        }
        # Bare tails: a model number and its variant word with neither brand nor series
        # ("60pro"), over every brand, so a tail two brands share names nothing.
        bare: dict[tuple[str, ...], set[str]] = {}
        for (_, tail), ids in tails.items():
            if len(tail) >= 2 and tail[0][:1].isdigit() and tail[1] in catalog_variants:
                bare.setdefault(tail, set()).update(ids)
        self._bare_tails = {k: frozenset(v) for k, v in bare.items()}
        # Edition words a catalog name adds to another name of the same product ("Mate
        # 60标准版"): they name the base model itself. A bare model number followed by
        # one ("16标准版") is the product whose whole tail is that number, if only one.
        edition: set[tuple[str, ...]] = set()
        edition_categories: dict[tuple[str, ...], set[str]] = {}
        for entry in entries:
            keys = {key_of(name) for name in entry.names}
            for key in keys:
                for short in keys:
                    rest = key[len(short) :]
                    if (
                        short
                        and rest
                        and key[: len(short)] == short
                        and all(not t.isascii() and not t[:1].isdigit() for t in rest)
                    ):
                        edition.add(rest)
                        edition_categories.setdefault(rest, set()).add(entry.category)
        # (a trim word of another category, 标准版 of a car, is that car's value)
        self._base_editions = sorted(edition, key=len, reverse=True)
        self._edition_categories = {k: frozenset(v) for k, v in edition_categories.items()}
        numbered: dict[str, set[str]] = {}
        for (_, tail), ids in tails.items():
            if len(tail) == 1 and tail[0].isdigit():
                numbered.setdefault(tail[0], set()).update(ids)
        self._number_tails = {k: frozenset(v) for k, v in numbered.items()}
        self._bare_lengths = sorted({len(t) for t in bare}, reverse=True)
        suffix_words = {t for k in self._suffix_keys for t in k if t.isascii() and t.isalpha()}
        initials: dict[str, set[str]] = {}
        for word in {*catalog_variants, *suffix_words}:
            if len(word) >= 3:
                initials.setdefault(word[0], set()).add(word)
        self._variant_letters = {
            letter: word
            for letter, words in initials.items()
            if len(words) == 1
            and (word := next(iter(words))) in catalog_variants
            and letter not in suffix_words
        }
        # A letter that is a variant word of its own ("15e", "s24 fe") never abbreviates.
        self._suffix_letters = frozenset(w for w in suffix_words if len(w) == 1)
        self._variant_words = frozenset(
            {*suffix_words, *catalog_variants, *self._adjective_suffixes}
        )
        self._nicknames = sorted(
            (
                (key_of(nickname), tuple(key_of(a) for a in alternatives))
                for nickname, alternatives in variant_nicknames.items()
                # one-character nicknames (破) are the normaliser's: it knows the dictionary
                if key_of(nickname) and (len(nickname) > 1 or nickname.isascii())
            ),
            key=lambda item: -len(item[0]),
        )

    @property
    def variant_words(self) -> frozenset[str]:
        """The words that name a variant after a model's name (pro, plus, ultra …)."""
        return self._variant_words

    def _reordered(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """A run of name words from tokens[start] (fillers such as 的 between them) that
        holds exactly the words of one product's name in another order; several
        products' names: an ambiguous name. Only a name word with a number among the
        words of the run; the longest such run wins. The run must start with what a name
        says last, its size or model code (14寸…, M3的…): "airpods 2 pro" stays the
        AirPods 2, a model we do not sell, never the Pro 2."""
        first = tokens[start]
        sized_first = (
            first.is_number
            and start + 1 < len(tokens)
            and tokens[start + 1].text in _SIZE_WORDS | {"英"}
        )
        coded_first = first.is_latin and len(first.text) == 1 and _glued_number(tokens, start + 1)
        if first.text not in self._bag_words or not (sized_first or coded_first):
            return None
        words: list[str] = []
        ends: list[int] = []
        index = start
        while index < len(tokens) and len(words) < self._longest_bag:
            token = tokens[index]
            if index > start and not token.adjacent:
                break
            if token.text in self._filler and index > start:
                index += 1
                continue
            if token.text not in self._bag_words:
                break
            words.append(token.text)
            index += 1
            ends.append(index)
        for size in range(len(words), 2, -1):
            ids = self._bags.get(tuple(sorted(words[:size])))
            if not ids:
                continue
            span = (tokens[start].start, tokens[ends[size - 1] - 1].end)
            if len(ids) != 1:
                return Mention(*span, reason="ambiguous name"), ends[size - 1]
            (product_id,) = ids
            shown = self._shown_name.get(product_id, "")
            return Mention(*span, product_id, "", True, shown), ends[size - 1]
        return None

    def _droppable_before_number(self, tokens: Sequence[Token], index: int) -> int:
        """The length of a droppable word (系列, series) at tokens[index] that a model
        number directly follows, else 0."""
        for key in self._droppable_keys:
            after = index + len(key)
            if (
                _starts_with(tokens, index, key)
                and after < len(tokens)
                and tokens[after].adjacent
                and tokens[after].is_number
            ):
                return len(key)
        return 0

    def _overlapping_end(
        self, tokens: Sequence[Token], start: int, end: int, ids: frozenset[str]
    ) -> int:
        """The end of a longer alias of the same product that starts inside the name
        tokens[start:end] ("ThinkPad X1 Carbon 2024款": the alias "X1 Carbon 2024款"
        carries on past "ThinkPad X1 Carbon"): the two names overlap into one."""
        if end >= len(tokens) or not tokens[end].adjacent:
            return end
        for inner in range(start + 1, end):
            if tokens[inner].text not in self._alias_trie:
                continue
            longer = self._walk(self._alias_trie, tokens, inner)
            if longer is not None and longer[0] > end and longer[1] == ids:
                return longer[0]
        return end

    def _exact(self, key: Sequence[str]) -> frozenset[str]:
        node: TokenTrie | frozenset[str] = self._alias_trie
        for token in key:
            assert isinstance(node, dict)
            child = node.get(token)
            if child is None:
                return frozenset()
            node = child
        assert isinstance(node, dict)
        found = node.get(_END)
        return found if isinstance(found, frozenset) else frozenset()

    def _variant_after(
        self, tokens: Sequence[Token], start: int, end: int
    ) -> tuple[int, frozenset[str]] | None:
        """A variant nickname or letter right after the name tokens[start:end]:
        (index past it, the products the name + variant names)."""
        if end >= len(tokens) or not tokens[end].adjacent:
            return None
        name = [t.text for t in tokens[start:end] if t.text not in self._filler]
        nicknamed = self._nickname_at(tokens, end, name)
        if nicknamed is not None:
            return nicknamed
        nxt = tokens[end]
        detached = self._detached_letter(tokens, end)
        if (
            tokens[end - 1].is_number
            and (nxt.attached or detached)
            and nxt.is_latin
            and len(nxt.text) == 1
            and nxt.text in self._variant_letters
            and not _glued_number(tokens, end + 1)
        ):
            return end + 1, self._exact([*name, self._variant_letters[nxt.text]])
        if detached and len(self._series_variants(name, nxt.text)) > 1:
            # "iPhone 16 P": Pro or Plus, both sold; neither reading is safe
            return end + 1, frozenset()
        if (
            tokens[end - 1].is_number
            and (nxt.attached or detached)
            and nxt.is_latin
            and len(nxt.text) == 1
            and nxt.text not in self._suffix_letters
            and not _glued_number(tokens, end + 1)
            # "15p max": a letter with another variant word after it is not one variant
            and not (end + 1 < len(tokens) and tokens[end + 1].text in self._variant_words)
            and (word := self._series_variant(name, nxt.text)) is not None
        ):
            return end + 1, self._exact([*name, word])
        return None

    def _nickname_at(
        self, tokens: Sequence[Token], at: int, name: Sequence[str]
    ) -> tuple[int, frozenset[str]] | None:
        """A variant nickname at tokens[at] after ``name``'s words: (index past it, the
        products name + nickname names)."""
        for nickname, alternatives in self._nicknames:
            if _starts_with(tokens, at, nickname):
                found = frozenset().union(*(self._exact([*name, *alt]) for alt in alternatives))
                return at + len(nickname), found
        return None

    def _configured_variant(
        self, tokens: Sequence[Token], start: int, end: int
    ) -> tuple[int, int, frozenset[str]] | None:
        """A variant nickname after the name tokens[start:end] with a configuration word
        of the vocabulary between them (苹果15顶配超大杯: 顶配, a hint of a variant key):
        (index of the nickname, index past it, the products name + nickname names)."""
        if end >= len(tokens) or not tokens[end].adjacent:
            return None
        for word in self._configuration_keys.get(tokens[end].text, ()):
            if not _starts_with(tokens, end, word):
                continue
            at = end + len(word)
            if at >= len(tokens) or not tokens[at].attached:
                return None
            name = [t.text for t in tokens[start:end] if t.text not in self._filler]
            nicknamed = self._nickname_at(tokens, at, name)
            return None if nicknamed is None else (at, *nicknamed)
        return None

    def _detached_letter(self, tokens: Sequence[Token], end: int) -> bool:
        """A single letter set apart by a space after a model number ("S24 U", "15 P")
        that can only abbreviate a word: no English one-letter word (a, I), and what
        follows it ends the name (punctuation, the end, Chinese, a number) or opens a
        phrase of the vocabulary ("15 P refresh rate"; "S24 u know" stays chat)."""
        nxt = tokens[end]
        if (
            nxt.attached
            or not nxt.adjacent
            or not tokens[end - 1].is_number
            or not nxt.is_latin
            or len(nxt.text) != 1
            or nxt.text in _ENGLISH_LETTER_WORDS
        ):
            return False
        following = tokens[end + 1] if end + 1 < len(tokens) else None
        if following is not None and following.is_cjk and following.attached:
            # a letter that starts a Chinese word (p图, k歌) is no variant: what follows
            # must open a word of the question (S24 U多重)
            rest = "".join(t.text for t in tokens[end + 1 : end + 3] if t.is_cjk and t.attached)
            return opens_a_word(rest, self._openings)
        return (
            following is None
            or not following.adjacent
            or following.is_cjk
            or self._phrase_follows(tokens, end + 1)
        )

    def _series_variant(self, name: Sequence[str], letter: str) -> str | None:
        """The one variant word starting with ``letter`` that the catalog lists right after
        this series' name ("15p": the iPhone 15 has a Pro and no Plus, so P is Pro); None
        when the series has none or several (then the letter stays unread)."""
        words = self._series_variants(name, letter)
        return words[0] if len(words) == 1 else None

    def _series_variants(self, name: Sequence[str], letter: str) -> list[str]:
        """The variant words starting with ``letter`` that the catalog lists right after
        this series' name."""
        node: TokenTrie | frozenset[str] = self._alias_trie
        for token in name:
            assert isinstance(node, dict)
            child = node.get(token)
            if child is None:
                return []
            node = child
        assert isinstance(node, dict)
        words = [
            w
            for w in node
            if w != _END and len(w) >= 3 and w.isascii() and w.isalpha() and w[0] == letter
        ]
        # A glued compound ("promax" beside "pro") is two words, abbreviated by two letters
        # ("pm"); one letter abbreviates the single word.
        return [w for w in words if not any(o != w and w.startswith(o) for o in words)]

    def _tail_after_brand(
        self, tokens: Sequence[Token], brand: str, end: int
    ) -> tuple[int, frozenset[str], int] | None:
        """ "华为60 pro", "华为手表4", "苹果耳机pro 2": brand [category word] model tail;
        (index past the tail, its products, index of the tail's first token)."""
        index = end
        category: str | None = None
        for key, cat in self._category_keys.items():
            if _starts_with(tokens, index, key):
                category, index = cat, index + len(key)
                break
        if index >= len(tokens) or not tokens[index].adjacent:
            return None
        for length in self._tail_lengths:
            tail = tuple(t.text for t in tokens[index : index + length])
            if len(tail) != length or not all(t.adjacent for t in tokens[index : index + length]):
                continue
            ids = self._tails.get((brand, tail))
            if ids is None:
                continue
            if category is not None:
                ids = frozenset(i for i in ids if self._categories[i] == category)
            if ids:
                return index + length, ids, index
        if (
            index + 1 < len(tokens)
            and tokens[index].generation
            and tokens[index + 1].adjacent
            and tokens[index + 1].text in self._variant_words
        ):
            # "华为耳机三代pro": the generation said before the variant word its names
            # write it after (FreeBuds Pro 3)
            ids = self._tails.get((brand, (tokens[index + 1].text, tokens[index].text)))
            if ids is not None and category is not None:
                ids = frozenset(i for i in ids if self._categories[i] == category)
            if ids:
                return index + 2, ids, index
        return None

    def _nickname_tail(
        self,
        tokens: Sequence[Token],
        brand: str,
        tail_start: int,
        tail_end: int,
        ids: frozenset[str],
    ) -> frozenset[str]:
        """The products "brand + tail + variant nickname" names: the brand's tails that
        are this tail followed by one of the nickname's variant words, in the category
        of the tail's own product; empty unless exactly one product."""
        tail = tuple(t.text for t in tokens[tail_start:tail_end])
        categories = {self._categories[i] for i in ids}
        for nickname, alternatives in self._nicknames:
            if not _starts_with(tokens, tail_end, nickname):
                continue
            found = frozenset(
                i
                for alt in alternatives
                for i in self._tails.get((brand, (*tail, *alt)), frozenset())
                if self._categories[i] in categories
            )
            return found if len(found) == 1 else frozenset()
        return frozenset()

    def _spaced_letter_word(self, tokens: Sequence[Token], start: int, end: int) -> bool:
        """Whether tokens[start:end] has a one-letter English word (i, a) standing for a
        series initial apart from the number after it: i15 is an iPhone 15, "i 15" not."""
        return any(
            tokens[i].text in _ENGLISH_LETTER_WORDS
            and tokens[i + 1].is_number
            and not tokens[i + 1].attached
            for i in range(start, end - 1)
        )

    def _spaced_initial(self, tokens: Sequence[Token], start: int, end: int) -> bool:
        """Whether an initialism in tokens[start:end] stands apart from the number after
        it (app2 is AirPods Pro 2; "app 2" may be the English word)."""
        return any(
            tokens[i].text in self._initial_words
            and i + 1 < end
            and tokens[i + 1].is_number
            and not tokens[i + 1].attached
            for i in range(start, end)
        )

    def brand_of(self, product_id: str) -> str:
        return self._brand_of[product_id]

    def context_mentions(self, text: str, capitals: frozenset[str] = frozenset()) -> list[Mention]:
        """Every place a one-character short name (汉 of 比亚迪汉) stands in ``text``: a
        product only if the question's context says so (derived: the grammar's).
        ``capitals``: the words the question writes in capitals (MY), where a series
        initial and model letter that is also an English word (my) may stand for the name
        (reason "initialism")."""
        return (
            [
                Mention(
                    index,
                    index + 1,
                    product_id,
                    derived=True,
                    listed=self._brand_word.get(product_id, "") + ch,
                )
                for index, ch in enumerate(text)
                if (product_id := self._context_names.get(ch)) is not None
                # 汉L, 汉dm: a Latin word glued to it makes it another model
                and not (
                    text[index + 1 : index + 2].isascii() and text[index + 1 : index + 2].isalnum()
                )
            ]
            + self._context_tail_mentions(text)
            + self._capital_mentions(text, capitals)
        )

    def _capital_mentions(self, text: str, capitals: frozenset[str]) -> list[Mention]:
        found = capitals & self._capital_initials.keys()
        if not found:
            return []
        out: list[Mention] = []
        tokens = self.tokeniser.tokens(text)
        for index, token in enumerate(tokens):
            if token.text not in found or token.attached:
                continue
            if index + 1 < len(tokens) and tokens[index + 1].attached:
                continue  # "MYP", "MY3": part of a longer code
            product_id = self._capital_initials[token.text]
            listed = self._shown_name.get(product_id, "")
            out.append(Mention(token.start, token.end, product_id, "initialism", True, listed))
        return out

    def _context_tail_mentions(self, text: str) -> list[Mention]:
        if not self._context_tails:
            return []
        tokens = self.tokeniser.tokens(text)
        out: list[Mention] = []
        for index in range(len(tokens) - 1):
            letter, number = tokens[index], tokens[index + 1]
            found = self._context_tails.get((letter.text, number.text))
            if found is None or not (number.attached or (len(letter.text) > 1 and number.adjacent)):
                continue
            if index > 0 and letter.attached:
                continue  # "gs9": part of a longer word
            following = tokens[index + 2] if index + 2 < len(tokens) else None
            if following is not None and (
                # a Chinese word glued on (s9手表) is no longer model name
                (following.attached and following.text.isascii())
                or (following.adjacent and following.text in self._variant_words)
            ):
                continue  # "s9e", "s9 ultra": another model
            product_id, listed = found
            out.append(Mention(letter.start, number.end, product_id, derived=True, listed=listed))
        return out

    def category_after(self, text: str, end: int) -> str:
        """The category of a category word written right after text[:end] ("s9手表"), or ""."""
        rest = text[end : end + 8]
        if rest[:1].isspace():
            rest = rest.lstrip()
        if not rest or rest[0].isascii():
            return ""
        for key, category in self._category_keys.items():
            if rest.startswith("".join(key)):
                return category
        return ""

    def category_of(self, product_id: str) -> str:
        return self._categories[product_id]

    def scan(self, text: str) -> ProductScan:
        tokens = self.tokeniser.tokens(text)
        products: list[Mention] = []
        unknown: list[Mention] = []
        brands: list[Mention] = []
        expansions: list[tuple[int, int, str]] = []
        index = 0
        count = len(tokens)
        while index < count:
            found = self._walk(self._alias_trie, tokens, index)
            if found is not None:
                end, ids = found
                if len(ids) == 1:
                    end = self._overlapping_end(tokens, index, end, ids)
                variant = self._variant_after(tokens, index, end) if len(ids) == 1 else None
                configured = (
                    self._configured_variant(tokens, index, end)
                    if len(ids) == 1 and variant is None
                    else None
                )
                if configured is not None:
                    # "苹果15顶配超大杯": the nickname is the name's variant; the
                    # configuration word between them stays for the constraint reader.
                    nickname_at, after, found_ids = configured
                    span = (tokens[index].start, tokens[after - 1].end)
                    if len(found_ids) != 1:
                        unknown.append(Mention(*span, reason="variant we do not sell"))
                    else:
                        (product_id,) = found_ids
                        shown = self._shown_name.get(product_id, "")
                        name_end = tokens[end - 1].end
                        products.append(Mention(span[0], name_end, product_id, "", True, shown))
                        nickname = tokens[nickname_at].start
                        products.append(Mention(nickname, span[1], product_id, "", True, " "))
                    index = after
                    continue
                derived = (
                    variant is not None
                    or tuple(t.text for t in tokens[index:end]) in self._shortened
                )
                if variant is not None:
                    end, ids = variant
                    if not ids:
                        unknown.append(
                            Mention(
                                tokens[index].start,
                                tokens[end - 1].end,
                                reason="variant we do not sell",
                            )
                        )
                        index = end
                        continue
                start_char, end_char = tokens[index].start, tokens[end - 1].end
                brand = self._brand_of[next(iter(ids))] if len(ids) == 1 else ""
                suffix_end = self._suffix_end(tokens, end, brand)
                lettered = self._lettered(tokens, end, suffix_end, ids)
                if lettered is not None:
                    # "华为60p": the name's number and one variant initial, read as the
                    # bare tail "60p" when that names a model of the same brand.
                    products.append(
                        Mention(start_char, tokens[lettered[1] - 1].end, lettered[0], derived=True)
                    )
                    index = lettered[1]
                    continue
                if self._spaced_letter_word(tokens, index, end):
                    index += 1  # "I 15": the pronoun before a number, no i15
                    continue
                if len(ids) != 1:
                    unknown.append(Mention(start_char, end_char, reason="ambiguous name"))
                elif suffix_end <= end + 1 and (
                    value := self._value_initial(tokens, index, end, next(iter(ids)))
                ):
                    # "特斯拉m3p": an initialism and a value's initial glued to it
                    (product_id,) = ids
                    key = tuple(t.text for t in tokens[index:end])
                    listed = self._initialled.get(key, "")
                    products.append(Mention(start_char, end_char, product_id, "", True, listed))
                    expansions.append((tokens[end].start, tokens[end].end, value))
                    end = suffix_end
                elif suffix_end > end:
                    unknown.append(
                        Mention(
                            start_char, tokens[suffix_end - 1].end, reason="variant we do not sell"
                        )
                    )
                    end = suffix_end
                else:
                    (product_id,) = ids
                    key = tuple(t.text for t in tokens[index:end])
                    listed = self._initialled.get(key, "")
                    if not listed and any(t in self._filler for t in key):
                        # "苹果的16": the name read past a filler word; the reader, which
                        # reads whole names, is shown the name without it.
                        listed = _joined(tokens[index:end], self._filler)
                    if listed and self._spaced_initial(tokens, index, end):
                        pass  # "app 2.0": the English word before a number, no name
                    elif self._foreign_prefix(text, tokens, index, product_id):
                        unknown.append(
                            Mention(start_char, end_char, reason="another brand's model")
                        )
                    else:
                        size = self._own_size(tokens, index, product_id)
                        if size is not None:  # "13-inch M3 MacBook Air": the name's own size
                            start_char = tokens[size].start
                        # a synonym put in (汉纯电版): shown as the name it stands for
                        listed = listed or self._synonym_names.get(key, "")
                        products.append(
                            Mention(
                                start_char, end_char, product_id, derived=derived, listed=listed
                            )
                        )
                index = end
                continue
            reordered = self._reordered(tokens, index)
            if reordered is not None:
                mention, index = reordered
                (products if mention.product_id else unknown).append(mention)
                continue
            bare = self._bare_tail(tokens, index)
            if bare is not None:
                mention, index = bare
                (products if mention.product_id else unknown).append(mention)
                continue
            head = self._walk(self._head_trie, tokens, index)
            if head is not None:
                end, labels = head
                named = self._brand_tail(tokens, index, end, labels)
                if named is None:
                    named = self._described(tokens, index, end, labels)
                if named is None:
                    named = self._brand_code(tokens, index)
                if named is not None:
                    mention, index = named
                    (products if mention.product_id else unknown).append(mention)
                    continue
                model_end = self._model_number_end(tokens, index, end)
                if model_end is not None and self._is_value(text, tokens, index, model_end):
                    model_end = None
                if model_end is not None:
                    model_end = max(model_end, self._suffix_end(tokens, model_end))
                    unknown.append(
                        Mention(
                            tokens[index].start,
                            tokens[model_end - 1].end,
                            reason="model not in catalog",
                        )
                    )
                    index = model_end
                    continue
                brand_labels = [label for label in labels if label.startswith("brand:")]
                if brand_labels:
                    family = self._category_at(tokens, end)
                    brands.append(
                        Mention(
                            tokens[index].start,
                            tokens[end - 1].end,
                            reason=brand_labels[0][6:],
                            category=family[0] if family is not None else "",
                        )
                    )
                    index = end
                    continue
            index += 1
        if not products and not unknown and len({b.reason for b in brands}) == 1:
            distant = self._distant_tail(text, brands)
            if distant is not None:
                products.append(distant)
        if len({m.product_id for m in products}) == 1 and not unknown:
            products.extend(self._restated(tokens, products))
        if self._editions:
            products = [self._with_edition(text, m) for m in products]
        return ProductScan(tuple(products), tuple(unknown), tuple(brands), tuple(expansions))

    def _restated(self, tokens: Sequence[Token], named: Sequence[Mention]) -> list[Mention]:
        """ "华为三代降噪耳机专业版…就是那个pro3": the named product's own model tail
        (a variant word and its number) said again elsewhere names it again."""
        product_id = named[0].product_id
        own = self._own_tails.get(product_id or "", ())
        out: list[Mention] = []
        for index, token in enumerate(tokens):
            if not own or any(m.start <= token.start < m.end for m in named):
                continue
            for tail in own:
                end = index + len(tail)
                if (
                    _starts_with(tokens, index, tail)
                    and all(t.adjacent for t in tokens[index + 1 : end])
                    and not (index > 0 and token.attached and tokens[index - 1].text.isascii())
                    and not (
                        end < len(tokens) and tokens[end].attached and tokens[end].text.isascii()
                    )
                ):
                    span = (token.start, tokens[end - 1].end)
                    out.append(Mention(*span, product_id, derived=True))
                    break
        return out

    def _value_initial(self, tokens: Sequence[Token], start: int, end: int, product_id: str) -> str:
        """The value words the letter glued after the initialism tokens[start:end] stands
        for ("" when the name is no initialism or the letter no value initial)."""
        if end >= len(tokens):
            return ""
        letter = tokens[end]
        key = tuple(t.text for t in tokens[start:end])
        if (
            key not in self._initialled
            or not letter.attached
            or not letter.is_latin
            or len(letter.text) != 1
        ):
            return ""
        if end + 1 < len(tokens) and tokens[end + 1].attached and not tokens[end + 1].is_cjk:
            return ""  # "m3p2": a longer code
        return self._value_initials.get(product_id, {}).get(letter.text, "")

    def expanded(self, text: str) -> tuple[str, ProductScan | None]:
        """``text`` with each value initial glued to an initialism written as the value's
        words ("特斯拉m3p" → "特斯拉m3 performance"), for the constraint reader; and the
        scan of ``text`` when it had to be scanned and nothing was expanded (a caller
        would otherwise repeat it)."""
        if not self._value_initials or not (
            _GLUED_LETTER.search(text)
            or (self._glued_words is not None and self._glued_words.search(text))
        ):
            return text, None
        scan = self.scan(text)
        if not scan.expansions:
            return text, scan
        for start, end, words in reversed(scan.expansions):
            text = f"{text[:start]} {words}{text[end:]}"
        return text, None

    def _distant_tail(self, text: str, brands: Sequence[Mention]) -> Mention | None:
        """ "十五的256版本定价 苹果的": the question's one brand word stands apart from a
        bare model number (digits or a Chinese numeral) that is the whole tail of exactly
        one of that brand's products; the number must be followed by 的 or a number (a
        variant of it: 十五的256), never by a counter or unit (十五天, 15号)."""
        brand = brands[0].reason
        found: list[Mention] = []
        for match in _BARE_NUMBER.finditer(text):
            start, end = match.span()
            if any(b.start <= start < b.end + 1 for b in brands):
                continue  # right after the brand word: the grammar's brand + tail
            before = text[start - 1 : start]
            if before in _NUMBER_HEADS or text[end : end + 1] not in _AFTER_BARE:
                continue
            run = match.group()
            value = run if run.isdigit() else str(parse_chinese_numeral(run) or "")
            ids = self._tails.get((brand, (value,)))
            if ids is not None and len(ids) == 1:
                (product_id,) = ids
                listed = self._shown_name.get(product_id, "")
                found.append(Mention(start, end, product_id, derived=True, listed=listed))
        return found[0] if len(found) == 1 else None

    def _with_edition(self, text: str, mention: Mention) -> Mention:
        """The mention with the product's own edition word beside it ("model 3 焕新版",
        "焕新版model 3"): part of the name, no variant or trim of it."""
        editions = self._editions.get(mention.product_id or "", ())
        start, end = mention.start, mention.end
        after = end + 1 if text[end : end + 1] == " " else end
        for word in editions:
            if text.startswith(word, after):
                end = after + len(word)
                break
        before = start - 1 if text[start - 1 : start] == " " else start
        for word in editions:
            if before >= len(word) and text.endswith(word, 0, before):
                start = before - len(word)
                break
        if (start, end) == (mention.start, mention.end):
            return mention
        return Mention(
            start, end, mention.product_id, mention.reason, mention.derived, mention.listed
        )

    def _bare_tail(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """ "60pro", "15 pro max": a model number and the variant words after it, with
        no brand or series before, when exactly one catalog product has that tail."""
        first = tokens[start]
        if not first.is_number:
            return None
        if (
            start > 0
            and first.attached
            and (tokens[start - 1].is_latin or tokens[start - 1].is_number)
        ):
            return None  # "k60 pro" is another brand's model
        nicknamed = self._bare_nickname(tokens, start)
        if nicknamed is not None:
            return nicknamed
        based = self._base_edition(tokens, start)
        if based is not None:
            return based
        for length in self._bare_lengths:
            window = tokens[start : start + length]
            if len(window) != length or not all(t.adjacent for t in window[1:]):
                continue
            ids = self._bare_tails.get(tuple(t.text for t in window))
            if ids is None:
                continue
            end = start + length
            start_char, end_char = first.start, tokens[end - 1].end
            suffix_end = self._suffix_end(tokens, end)
            if suffix_end > end:
                return (
                    Mention(
                        start_char, tokens[suffix_end - 1].end, reason="variant we do not sell"
                    ),
                    suffix_end,
                )
            if len(ids) != 1:
                return Mention(start_char, end_char, reason="ambiguous name"), end
            (product_id,) = ids
            return Mention(start_char, end_char, product_id, derived=True), end
        return self._bare_letter(tokens, start)

    def _described(
        self, tokens: Sequence[Token], start: int, end: int, labels: frozenset[str]
    ) -> tuple[Mention, int] | None:
        """ "苹果降噪耳机二代": brand + a feature word + a category word + a generation
        number names the product when exactly one catalog product of that brand and
        category carries the feature in its spec text and has that number in its names;
        otherwise nothing (the words are read as before)."""
        brands = [label[6:] for label in labels if label.startswith("brand:")]
        if len(brands) != 1 or not self._feature_keys:
            return None
        index = end
        # "华为三代降噪耳机": the generation may come first, right after the brand.
        number: int | None = None
        if index < len(tokens) and tokens[index].is_number and tokens[index].adjacent:
            number, index = index, index + 1
        forms: tuple[str, ...] = ()
        for key, found in self._feature_keys.items():
            if _starts_with(tokens, index, key):
                forms, index = found, index + len(key)
                break
        category: str | None = None
        for key, cat in self._category_keys.items():
            if forms and _starts_with(tokens, index, key):
                category, index = cat, index + len(key)
                break
        if number is None:
            number, index = index, index + 1
        if (
            category is None
            or number >= len(tokens)
            or not tokens[number].is_number
            or not all(t.adjacent for t in tokens[end:index])
            or _glued_number(tokens, index)
        ):
            return None
        generation = tokens[number].text
        found_ids = [
            product_id
            for product_id, (brand, cat, text, numbers) in self._described_by.items()
            if brand == brands[0]
            and cat == category
            and generation in numbers
            and any(form in text for form in forms)
        ]
        if len(found_ids) != 1:
            return None
        (product_id,) = found_ids
        # A variant nickname after it (专业版) must be one the product's names carry.
        for nickname, alternatives in self._nicknames:
            if (
                index < len(tokens)
                and tokens[index].adjacent
                and _starts_with(tokens, index, nickname)
            ):
                words = self._described_words.get(product_id, frozenset())
                if not any(all(w in words for w in alt) for alt in alternatives):
                    return None
                index += len(nickname)
                break
        listed = self._shown_name.get(product_id, "")
        mention = Mention(
            tokens[start].start, tokens[index - 1].end, product_id, derived=True, listed=listed
        )
        return mention, index

    def _base_edition(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """ "16标准版": a bare model number + a base-edition word is the one product whose
        tail is that number alone; several, or none, leave it to the other rules."""
        after = start + 1
        if after >= len(tokens) or not tokens[after].adjacent:
            return None
        for word in self._base_editions:
            if _starts_with(tokens, after, word):
                ids = self._number_tails.get(tokens[start].text, frozenset())
                if len(ids) != 1:
                    return None
                (product_id,) = ids
                if self._categories[product_id] not in self._edition_categories[word]:
                    return None
                end = after + len(word)
                listed = self._shown_name.get(product_id, "")
                span = (tokens[start].start, tokens[end - 1].end)
                return Mention(*span, product_id, derived=True, listed=listed), end
        return None

    def _bare_nickname(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """ "15超大杯": a model number and a variant nickname right after it, with no brand
        before: the bare tails that are the number + one of the nickname's variant words.
        Exactly one names it; none, when tails of that number exist, is a variant the
        catalog does not sell (never a neighbouring variant); several stay ambiguous."""
        first = tokens[start]
        after = start + 1
        if after >= len(tokens) or not tokens[after].adjacent:
            return None
        for nickname, alternatives in self._nicknames:
            if not _starts_with(tokens, after, nickname):
                continue
            found = frozenset(
                i for alt in alternatives for i in self._bare_tails.get((first.text, *alt), ())
            )
            end = after + len(nickname)
            span = (first.start, tokens[end - 1].end)
            if len(found) == 1:
                (product_id,) = found
                listed = self._shown_name.get(product_id, "")
                return Mention(*span, product_id, derived=True, listed=listed), end
            if found:
                return Mention(*span, reason="ambiguous name"), end
            if any(tail[0] == first.text and len(tail) > 1 for tail in self._bare_tails):
                return Mention(*span, reason="variant we do not sell"), end
            return None
        return None

    def _lettered(
        self, tokens: Sequence[Token], end: int, suffix_end: int, ids: frozenset[str]
    ) -> tuple[str, int] | None:
        """The product a name ending in a model number names with the one letter glued
        after it, when the bare tail (number + letter) names a model of the same brand."""
        if suffix_end != end + 1 or len(ids) != 1 or not tokens[end - 1].is_number:
            return None
        found = self._bare_letter(tokens, end - 1)
        if found is None or found[0].product_id is None:
            return None
        product_id = found[0].product_id
        if self._brand_of[product_id] != self._brand_of[next(iter(ids))]:
            return None
        return product_id, found[1]

    def _bare_letter(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """ "16p": a model number and a glued letter, when the bare tails of that number
        have exactly one variant word with that initial (as for a named series, 15p)."""
        end = start + 2
        if end > len(tokens):
            return None
        number, letter = tokens[start], tokens[start + 1]
        if not (
            letter.attached
            and letter.is_latin
            and len(letter.text) == 1
            and letter.text not in self._suffix_letters
            and not _glued_number(tokens, end)
            and not (end < len(tokens) and tokens[end].text in self._variant_words)
        ):
            return None
        words = {
            tail[1]
            for tail in self._bare_tails
            if len(tail) == 2
            and tail[0] == number.text
            and tail[1][:1] == letter.text
            and len(tail[1]) >= 3
        }
        # "promax" beside "pro" is two words (abbreviated "pm"); one letter is the one word.
        words = {w for w in words if not any(o != w and w.startswith(o) for o in words)}
        if len(words) != 1:
            return None
        ids = self._bare_tails[(number.text, next(iter(words)))]
        if len(ids) != 1:
            return None
        (product_id,) = ids
        return Mention(number.start, letter.end, product_id, derived=True), end

    def _brand_tail(
        self, tokens: Sequence[Token], start: int, end: int, labels: frozenset[str]
    ) -> tuple[Mention, int] | None:
        brands = [label[6:] for label in labels if label.startswith("brand:")]
        if len(brands) != 1:
            return None
        found = self._tail_after_brand(tokens, brands[0], end)
        if found is None:
            return None
        tail_end, ids, tail_start = found
        variant = self._variant_after(tokens, start, tail_end) if len(ids) == 1 else None
        if variant is not None:
            # "华为60专业版": the nickname's variant words after the tail name the model
            # when exactly one of the brand's tails (same category) is tail + variant;
            # a letter ("华为60p") is read below, and anything else names nothing.
            ids = self._nickname_tail(tokens, brands[0], tail_start, tail_end, ids)
            tail_end = variant[0]
        start_char, end_char = tokens[start].start, tokens[tail_end - 1].end
        suffix_end = self._suffix_end(tokens, tail_end)
        lettered = self._lettered(tokens, tail_end, suffix_end, ids)
        if lettered is not None:  # "华为60p"
            return Mention(
                start_char, tokens[lettered[1] - 1].end, lettered[0], derived=True
            ), lettered[1]
        if len(ids) != 1:
            return Mention(start_char, end_char, reason="ambiguous name"), tail_end
        if suffix_end > tail_end:
            return (
                Mention(start_char, tokens[suffix_end - 1].end, reason="variant we do not sell"),
                suffix_end,
            )
        (product_id,) = ids
        after = self._category_at(tokens, tail_end)
        if after is not None:
            # "苹果9代手表": a category word after the tail says what the model is; "苹果9代
            # 手机" is a phone the catalog does not sell, never the watch of that tail.
            category, after_end = after
            if category != self._categories[product_id]:
                end_char = tokens[after_end - 1].end
                return Mention(start_char, end_char, reason="model not in catalog"), after_end
            return Mention(
                start_char, tokens[after_end - 1].end, product_id, derived=True
            ), after_end
        return Mention(start_char, end_char, product_id, derived=True), tail_end

    def _brand_code(self, tokens: Sequence[Token], start: int) -> tuple[Mention, int] | None:
        """A brand word at tokens[start] followed by a model code and a category word."""
        for brand, keys in self._brand_keys.items():
            for key in keys:
                end = start + len(key)
                if tuple(t.text for t in tokens[start:end]) == key and all(
                    t.adjacent for t in tokens[start + 1 : end]
                ):
                    found = self._code_after_brand(tokens, start, end, brand)
                    if found is not None:
                        return found
        return None

    def _code_after_brand(
        self, tokens: Sequence[Token], start: int, end: int, brand: str
    ) -> tuple[Mention, int] | None:
        """ "联想X1笔记本": brand + the model code a name starts with (its words up to the
        model number: x1 of "X1 Carbon") + a category word names the one product of that
        brand and category whose names start so; the category word must follow."""
        for length in self._code_lengths:
            code = tuple(t.text for t in tokens[end : end + length])
            ids = self._codes.get((brand, code))
            if ids is None and (brand, code) in self._tail_codes:
                ids = frozenset((self._tail_codes[(brand, code)],))
            if ids is None or len(code) != length:
                continue
            if not all(t.adjacent for t in tokens[end : end + length]):
                continue
            if _glued_number(tokens, end + length) or (
                end + length < len(tokens)
                and tokens[end + length].attached
                and tokens[end + length].is_latin
            ):
                continue  # "x1c", "x10": another code
            after = self._category_at(tokens, end + length)
            if after is None:
                return None
            category, after_end = after
            found = [i for i in ids if self._categories[i] == category]
            if len(found) != 1:
                return None
            mention = Mention(
                tokens[start].start,
                tokens[after_end - 1].end,
                found[0],
                derived=True,
                listed=self._shown_name.get(found[0], ""),
            )
            return mention, after_end
        return None

    def _category_at(self, tokens: Sequence[Token], index: int) -> tuple[str, int] | None:
        """The category of the category word that starts at tokens[index], right after
        the previous token (the 代 of "9代" between them is no token), and its end."""
        if index >= len(tokens) or not tokens[index].adjacent:
            return None
        for key, category in self._category_keys.items():
            if _starts_with(tokens, index, key):
                return category, index + len(key)
        return None

    def _walk(
        self, trie: TokenTrie, tokens: Sequence[Token], start: int
    ) -> tuple[int, frozenset[str]] | None:
        node = trie
        best: tuple[int, frozenset[str]] | None = None
        index = start
        while index < len(tokens):
            token = tokens[index]
            if index > start and not token.adjacent:
                break  # punctuation ends a name
            child = node.get(token.text)
            if child is None:
                if index > start and token.text in self._filler:
                    index += 1  # "M3的MacBook Air"
                    continue
                if index > start and token.text in self._droppable_starts:
                    skipped = self._droppable_before_number(tokens, index)
                    if skipped:
                        index += skipped  # "苹果手表系列9": the name without the word
                        continue
                break
            assert isinstance(child, dict)
            node = child
            index += 1
            values = node.get(_END)
            if isinstance(values, frozenset):
                best = (index, values)
        return best

    def _suffix_end(self, tokens: Sequence[Token], end: int, brand: str = "") -> int:
        """Index past a variant word that directly follows a name, else ``end``.

        A multi-word suffix may overlap the end of the name: "pro max" after "iPhone 16 Pro"
        only needs the "max" (but after a name of a ``brand`` whose names never write
        "pro max", an adjective before a spec phrase is the adjective: "Mate 60 Pro max
        wired charging").
        """
        if end >= len(tokens) or not tokens[end].adjacent:
            return end
        candidates = self._suffix_by_next.get(tokens[end].text, ())
        for tail, rest in candidates:  # "pro max" after "... Pro": a variant
            ends_with_tail = tail and tuple(t.text for t in tokens[end - len(tail) : end]) == tail
            if ends_with_tail and _starts_with(tokens, end, rest):
                if rest in self._edition_keys:
                    return end
                if (
                    brand
                    and (*tail, *rest) not in self._brand_suffixes.get(brand, frozenset())
                    and len(rest) == 1
                    and rest[0] in self._adjective_suffixes
                    and self._phrase_follows(tokens, end + 1)
                ):
                    continue
                return end + len(rest)
        if self._is_exception(tokens, end):
            return end
        for tail, rest in candidates:
            if not tail and _starts_with(tokens, end, rest):
                return end + len(rest)
        word = tokens[end].text
        if word in self._adjective_suffixes and not self._phrase_follows(tokens, end + 1):
            return end + 1
        last, nxt = tokens[end - 1], tokens[end]
        # "15e", "S24s": a letter glued to a model number is another model; so is one
        # glued to a one-character short name (汉L, as 汉 is the Han's model mark).
        if (
            (last.is_number or last.text in self._context_names)
            and nxt.attached
            and nxt.is_latin
            and len(nxt.text) == 1
        ):
            return end + 1
        return end

    def _phrase_follows(self, tokens: Sequence[Token], index: int) -> bool:
        """Whether an English phrase of the vocabulary starts at tokens[index]."""
        following = tokens[index] if index < len(tokens) else None
        return following is not None and (
            following.adjacent and following.is_latin and following.text in self._phrase_starts
        )

    def _model_number_end(self, tokens: Sequence[Token], start: int, end: int) -> int | None:
        if end >= len(tokens) or not tokens[end].adjacent:
            return None
        nxt = tokens[end]
        if nxt.is_number:
            following = tokens[end + 1] if end + 1 < len(tokens) else None
            if following is not None and (
                (following.attached and following.text in _MEASURES)
                or any(_starts_attached(tokens, end + 1, k) for k in self._measure_keys)
            ):
                return None  # "手表41mm", "手表45毫米": a measure after a head, no model
            return end + 1
        if nxt.is_latin and len(nxt.text) <= 3 and end + 1 < len(tokens):
            after = tokens[end + 1]
            if after.is_number and after.attached:
                return end + 2  # "p60", "su7", "t14", "m2"
        head = tuple(t.text for t in tokens[start:end])
        if head in self._letter_heads and nxt.is_latin and len(nxt.text) == 1:
            return end + 1  # "model s"
        if self._is_exception(tokens, end):
            return None
        for suffix in self._suffix_keys:
            if len(suffix) == 1 and nxt.text == suffix[0] and nxt.is_latin:
                return end + 1  # "apple watch ultra", "iphone se"
        return None

    def _foreign_prefix(
        self,
        text: str,
        tokens: Sequence[Token],
        index: int,
        product_id: str,
    ) -> bool:
        first = tokens[index]
        if index > 0 and first.attached and first.is_number and tokens[index - 1].is_latin:
            return True  # "k15 pro" is not "15 pro"
        if self._size_before(tokens, index) and self._own_size(tokens, index, product_id) is None:
            return True  # "15英寸MacBook Air M3": a size the catalog's names do not carry
        before = text[max(0, first.start - self._foreign_window) : first.start].rstrip()
        if not before:
            return False
        words = self._foreign_words.get(self._brand_of[product_id], ())
        if not before.endswith(words):
            return False  # no other brand's word right before the name (one C scan)
        for word in words:
            if before.endswith(word):
                ahead = before[: len(before) - len(word)]
                if not (word[:1].isascii() and ahead[-1:].isascii() and ahead[-1:].isalpha()):
                    return True
        return False

    def _is_exception(self, tokens: Sequence[Token], index: int) -> bool:
        candidates = self._suffix_exceptions.get(tokens[index].text, ())
        return any(_starts_with(tokens, index, key) for key in candidates)

    def _own_size(self, tokens: Sequence[Token], index: int, product_id: str) -> int | None:
        """The index of the size before tokens[index] when it is one the product's own
        names carry ("13-inch M3 MacBook Air": 13-inch MacBook Air M3 is a listed name)."""
        before = self._size_index(tokens, index)
        if before is None:
            return None
        own = tokens[before].text in self._name_sizes.get(product_id, frozenset())
        return before if own else None

    def _size_before(self, tokens: Sequence[Token], index: int) -> bool:
        return self._size_index(tokens, index) is not None

    def _size_index(self, tokens: Sequence[Token], index: int) -> int | None:
        """The number token of a size said right before the name ("15英寸MacBook", and
        with the modifier's 的 between: "15寸的MacBook")."""
        word = index - 1
        if word >= 0 and tokens[word].text == "的" and tokens[index].adjacent:
            word -= 1
        if word < 1 or not tokens[word + 1].adjacent or tokens[word].text not in _SIZE_WORDS:
            return None
        before = word - 1
        if tokens[before].text == "英" and before > 0:
            before -= 1
        if tokens[before].is_number and tokens[before + 1].adjacent:
            return before
        return None

    def _is_value(self, text: str, tokens: Sequence[Token], start: int, end: int) -> bool:
        span = text[tokens[start].start : tokens[end - 1].end]
        return any(p.fullmatch(span) for p in self._non_names)


#: A letter glued after a number, ending the word (m3p): a value initial may be one.
_GLUED_LETTER = re.compile(r"\d[a-z](?![a-z])")
#: A number standing alone: digits or a Chinese numeral, no part of a longer number, code
#: or numeral word.
_BARE_NUMBER = re.compile(
    r"(?<![0-9a-z.零〇一二两三四五六七八九十百千])(?:\d+|[零〇一二两三四五六七八九十百千]+)"
    r"(?![0-9a-z.零〇一二两三四五六七八九十百千])"
)
#: What a bare model number may not follow: 第 (an ordinal), 的 of "苹果的15" is the
#: grammar's.
_NUMBER_HEADS = frozenset("第")
#: What follows a bare model number: 的 (十五的) or a number glued to it after 的.
_AFTER_BARE = frozenset("的")


def note_editions(note: str) -> tuple[str, ...]:
    """The edition words of a catalog note: its Chinese words ending in 版 ("2023 refresh
    (焕新版)" gives 焕新版), and each without the 版 (焕新) as shoppers also write it."""
    words = [w for w in re.findall(r"[\u4e00-\u9fff]{2,}", note) if w.endswith("版")]
    return tuple(dict.fromkeys(x for w in words for x in (w, w[:-1])))


def screen_sizes(specs: Mapping[str, object]) -> tuple[str, ...]:
    """The product's one screen size as a customer writes it (6.1, 14); none for sizes by case."""
    spec = specs.get("screen_size")
    value = spec.get("value") if isinstance(spec, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ()
    return (f"{value:g}",)


def spec_text(specs: object) -> str:
    """Every text of a product's specs (values, list items, notes), lower case, one line:
    what a description name's feature word is looked up in."""
    out: list[str] = []
    stack = [specs]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item.lower())
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return " | ".join(out)


def _glued_number(tokens: Sequence[Token], index: int) -> bool:
    return index < len(tokens) and tokens[index].attached and tokens[index].is_number


def _starts_with(tokens: Sequence[Token], index: int, key: Sequence[str]) -> bool:
    if index + len(key) > len(tokens):
        return False
    return all(
        tokens[index + i].text == part and tokens[index + i].adjacent for i, part in enumerate(key)
    )


def _starts_attached(tokens: Sequence[Token], index: int, key: Sequence[str]) -> bool:
    """Whether ``key`` starts at tokens[index], glued to the token before it."""
    return index < len(tokens) and tokens[index].attached and _starts_with(tokens, index, key)


def _latin_words(text: str) -> list[str]:
    out: list[str] = []
    word = []
    for ch in text:
        if ch.isascii() and ch.isalpha():
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def _is_distinctive(head: Sequence[str]) -> bool:
    """A head must be a real series word, not a lone letter such as the "m" of "m3"."""
    cjk = sum(1 for t in head if not t.isascii())
    return cjk >= 2 or any(t.isascii() and t.isalpha() and len(t) >= 2 for t in head)


def _dropped(key: tuple[str, ...], droppable: set[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``key`` without one droppable word that sits between a name word and a number
    (or a final model letter: tesla model y → tesla y)."""

    def model_mark(index: int) -> bool:
        token = key[index]
        last_letter = index == len(key) - 1 and len(token) == 1 and token.isalpha()
        return token[:1].isdigit() or last_letter

    return [
        (*key[:i], *key[i + 1 :])
        for i in range(1, len(key) - 1)
        if (key[i],) in droppable and model_mark(i + 1)
    ]


def _replace(
    key: tuple[str, ...], old: tuple[str, ...], new: tuple[str, ...]
) -> list[tuple[str, ...]]:
    out = []
    width = len(old)
    for i in range(len(key) - width + 1):
        if key[i : i + width] == old:
            out.append((*key[:i], *new, *key[i + width :]))
    return out


def _abbreviated(
    aliases: Mapping[tuple[str, ...], set[str]],
    listed: Mapping[tuple[str, ...], Sequence[tuple[str, ...]]],
    variant_tokens: set[str],
    brand_tokens: set[str],
    in_context: dict[tuple[str, ...], str],
    brand_of: Mapping[str, str],
) -> dict[tuple[str, ...], set[str]]:
    """Catalog names (``listed``: name → its brand's words) with the series word before
    the model number shortened to its initial ("m60" for Mate 60; with a variant letter
    also "m60p"), the way shoppers abbreviate, also after the brand's words: only a Latin
    series word of three letters or more that starts the name and is no variant or brand
    word (an initial that is an English word, the i of i15, only glued to the number:
    ``scan`` checks), only where the short form names one product, and never where it
    is written inside another name (Model 3's "m3" is the M3 chip of a MacBook Air M3:
    such a letter and number alone go to ``in_context``, a product only in context)."""
    found: dict[tuple[str, ...], set[str]] = {}
    lettered: defaultdict[tuple[str, ...], set[str]] = defaultdict(set)
    # Listed names, and the synonym-built aliases that start with the same series word
    # ("iphone 15 pm": i15pm), the latter without brand prefixes.
    series_starts = {k[0] for k in listed if k}
    sources = {**{k: () for k in aliases if k and k[0] in series_starts}, **listed}
    for key, brands in sources.items():
        ids = aliases.get(key, set())
        cut = next((i for i, t in enumerate(key) if t[:1].isdigit()), 0)
        word = key[cut - 1] if cut == 1 else ""
        if (
            len(word) >= 3
            and word.isascii()
            and word.isalpha()
            and word not in variant_tokens
            and word not in brand_tokens
        ):
            short = (word[0], *key[cut:])
            for prefix in ((), *brands):
                found.setdefault((*prefix, *short), set()).update(ids)
        elif _series_and_model_letter(key, variant_tokens, brand_tokens):
            # "Model Y" → "my": the series initial and the model letter, one word; only
            # after a Chinese word of the brand (特斯拉my): alone, or after "tesla" ("tesla
            # my car"), it is an English word.
            for prefix in (b for b in brands if not "".join(b).isascii()):
                lettered[(*prefix, key[0][0] + key[1])].update(ids)
    out: dict[tuple[str, ...], set[str]] = {
        short: ids
        for short, ids in lettered.items()
        if len(ids) == 1 and short not in aliases and not _written_in(short[-1], aliases)
    }
    # The aliases by each pair of words they hold: only those can contain a two-word core.
    by_pair: dict[tuple[str, ...], list[tuple[tuple[str, ...], set[str]]]] = {}
    for key, owners in aliases.items():
        for pair in dict.fromkeys(key[i : i + 2] for i in range(len(key) - 1)):
            by_pair.setdefault(pair, []).append((key, owners))
    for short, ids in found.items():
        if len(ids) != 1 or short in aliases:
            continue
        start = next(i for i, t in enumerate(short) if t[:1].isdigit()) - 1
        core = short[start : start + 2]
        # After its brand word (特斯拉m3) only the brand's own names can clash with it.
        brands_of = {brand_of[i] for i in ids} if start > 0 else None
        candidates = by_pair.get(core, ()) if len(core) == 2 else aliases.items()
        if any(
            _contains(key, core)
            and not ({o for o in owners if brands_of is None or brand_of[o] in brands_of} <= ids)
            for key, owners in candidates
        ):
            if len(short) == 2:
                # "m3" is also the chip of two MacBooks: Model 3 only in context
                in_context[short] = next(iter(ids))
            continue
        out[short] = ids
    return out


#: One-letter English words: as an initial they would read "I 15" as a model.
_ENGLISH_LETTER_WORDS = frozenset("ai")


_CAMEL = re.compile(r"[A-Za-z]+")


def camel_initialisms(name: str) -> list[tuple[str, str, str]]:
    """(word, its capitals, capitals + the next Latin word's initial) for each CamelCase
    word of a catalog name ("AirPods Pro 2" → ("airpods", "ap", "app"))."""
    words = _CAMEL.findall(name)
    out: list[tuple[str, str, str]] = []
    for index, word in enumerate(words):
        capitals = "".join(ch for ch in word if ch.isupper())
        if len(capitals) < 2 or not word[0].isupper() or word.isupper():
            continue
        nxt = words[index + 1] if index + 1 < len(words) else ""
        squeezed = capitals + nxt[0] if nxt.isalpha() and len(nxt) >= 2 else ""
        out.append((word.lower(), capitals.lower(), squeezed.lower()))
    return out


def _initialled(
    key: tuple[str, ...], word: str, short: str, squeezed: str
) -> list[tuple[str, ...]]:
    """``key`` with ``word`` written as its capitals, and squeezed with the next word."""
    if word not in key:
        return []
    at = key.index(word)
    out = [(*key[:at], short, *key[at + 1 :])]
    if squeezed and at + 1 < len(key) and key[at + 1][:1] == squeezed[-1]:
        out.append((*key[:at], squeezed, *key[at + 2 :]))
    return out


def _joined(tokens: Sequence[Token], filler: frozenset[str]) -> str:
    """The tokens as one name, without filler words (Latin words and numbers spaced)."""
    out = ""
    for token in tokens:
        if token.text in filler:
            continue
        if out and out[-1].isascii() and out[-1].isalnum() and token.text[:1].isascii():
            out += " "
        out += token.text
    return out


def _written_in(word: str, aliases: Mapping[tuple[str, ...], set[str]]) -> bool:
    """Whether ``word`` is a token of some alias (then it is no abbreviation)."""
    return any(word in key for key in aliases)


def _contains(key: Sequence[str], part: Sequence[str]) -> bool:
    size = len(part)
    return any(tuple(key[i : i + size]) == tuple(part) for i in range(len(key) - size + 1))


def _expand(
    base: tuple[str, ...],
    synonym_keys: Sequence[Sequence[tuple[str, ...]]],
    own_brands: Sequence[tuple[str, ...]],
) -> set[tuple[str, ...]]:
    variants = {base}
    for _ in range(2):  # two rounds: "苹果15 pro max" → "ip15 pm"
        fresh: set[tuple[str, ...]] = set()
        for key in variants:
            for group in synonym_keys:
                for old in group:
                    for new in group:
                        if new != old:
                            fresh.update(_replace(key, old, new))
        variants |= fresh
    with_brands: set[tuple[str, ...]] = set()
    for key in variants:
        leading = next((b for b in own_brands if key[: len(b)] == b), None)
        if leading is None:
            with_brands.update((*b, *key) for b in own_brands)
        else:
            rest = key[len(leading) :]
            # "比亚迪汉" → "迪子汉": any word of the same brand in its place.
            with_brands.update((*b, *rest) for b in own_brands if b != leading)
            # "华为Mate 60" → "Mate 60", but "小米14" never → "14".
            if any(t.isascii() and t.isalpha() for t in rest) and not all(
                t[:1].isdigit() for t in rest
            ):
                with_brands.add(rest)
    return variants | with_brands


def _series_and_model_letter(
    key: tuple[str, ...], variant_tokens: AbstractSet[str], brand_tokens: AbstractSet[str]
) -> bool:
    """A listed name that is a Latin series word and one model letter ("model y"), whose
    initials form a short form ("my")."""
    return (
        len(key) == 2
        and len(key[0]) >= 3
        and key[0].isascii()
        and key[0].isalpha()
        and key[0] not in variant_tokens
        and key[0] not in brand_tokens
        and len(key[1]) == 1
        and key[1].isascii()
        and key[1].isalpha()
    )
