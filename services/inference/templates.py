"""Prefix template matcher: picks the SOP template when the semantic layer could not.

The semantic layer usually knows the attribute, and the attribute names its template
family (tier ``semantic``). When it does not, three tiers run in order, cheapest first:

- **L1** exact/normalised phrase match: the longest template phrase (the template's own
  examples plus the zh/en synonyms of its attributes) found in the normalised question.
- **L2** Jaccard similarity with entity awareness: product names are masked out before
  comparing token sets (CJK bigrams and Latin words), so "iPhone 15" does not dilute the
  similarity, and templates that do not apply to the named product's category are skipped.
- **L3** vector search under a time budget (default 5 ms): cosine similarity of character
  n-gram vectors. A search that overruns the budget is abandoned and the generic
  template is used; the prompt is then still valid, only less specific.

Matches are counted per tier, and L3 timeouts separately (``stats()``; Prometheus
counters when given a registry).
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from prometheus_client import CollectorRegistry
from prometheus_client import Counter as PromCounter

from services.adapters.catalog_files import load_attributes, load_catalog
from services.core.prompt import SopCatalog, SopTemplate, sop_catalog_from_dict
from services.paths import DEMO_DATA_DIR

Clock = Callable[[], float]

_PRODUCT_MASK = " ⟨product⟩ "
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD_OR_CJK_RUN = re.compile(rf"[a-z0-9]+(?:[.+][a-z0-9]+)*|[{_CJK}]+")
_NOT_TEXT = re.compile(rf"[^a-z0-9{_CJK}⟨⟩.+ ]+")


class MatchTier(StrEnum):
    SEMANTIC = "semantic"
    L1 = "l1"
    L2 = "l2"
    L3 = "l3"
    GENERIC = "generic"


class TemplateMatcherError(Exception):
    """Base class for matcher errors."""


class L3BudgetExceededError(TemplateMatcherError):
    def __init__(self, deadline: float, observed_at: float) -> None:
        self.deadline = deadline
        self.observed_at = observed_at
        super().__init__(
            f"L3 vector search passed its deadline by {(observed_at - deadline) * 1e3:.2f} ms"
        )


@dataclass(frozen=True, slots=True)
class MatcherConfig:
    l2_threshold: float = 0.4
    l3_threshold: float = 0.45
    l3_budget_seconds: float = 0.005


@dataclass(frozen=True, slots=True)
class TemplateMatch:
    template: SopTemplate
    tier: MatchTier
    score: float = 1.0
    matched_phrase: str | None = None
    l3_timed_out: bool = False


@dataclass(frozen=True, slots=True)
class MatchStats:
    by_tier: Mapping[str, int]
    l3_timeouts: int


@dataclass(frozen=True, slots=True)
class VectorHit:
    template_id: str
    phrase: str
    score: float


class VectorIndex(Protocol):
    """Nearest template phrase for a (normalised, entity-masked) question.

    Implementations check ``clock() > deadline`` while they work and raise
    :class:`L3BudgetExceededError` when it passes.
    """

    def search(self, text: str, *, deadline: float, clock: Clock) -> VectorHit | None: ...


def normalise(text: str) -> str:
    """NFKC, case-folded, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NOT_TEXT.sub(" ", text).split())


def token_features(text: str) -> frozenset[str]:
    """Latin words and CJK character bigrams (a lone CJK character stands for itself)."""
    features: set[str] = set()
    for run in _WORD_OR_CJK_RUN.findall(text):
        if run[0].isascii() or len(run) == 1:
            features.add(run)
        else:
            features.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(features)


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _ngram_vector(text: str, sizes: Sequence[int] = (1, 2, 3)) -> dict[str, float]:
    compact = text.replace(" ", "")
    counts: Counter[str] = Counter()
    for size in sizes:
        counts.update(compact[i : i + size] for i in range(len(compact) - size + 1))
    norm = math.sqrt(sum(v * v for v in counts.values())) or 1.0
    return {gram: count / norm for gram, count in counts.items()}


class CharNgramIndex:
    """Brute-force cosine search over character 1-3-gram vectors of template phrases.

    Stands in for an embedding index (no model can be downloaded here); the budget logic
    around it is the same for any :class:`VectorIndex`.
    """

    #: Deadline checks every this many candidates: often enough to stop within budget.
    CHECK_EVERY = 8

    def __init__(self, phrases: Iterable[tuple[str, str]]) -> None:
        self._entries = [
            (template_id, phrase, _ngram_vector(phrase)) for template_id, phrase in phrases
        ]

    def search(self, text: str, *, deadline: float, clock: Clock) -> VectorHit | None:
        query = _ngram_vector(text)
        best: VectorHit | None = None
        for index, (template_id, phrase, vector) in enumerate(self._entries):
            if index % self.CHECK_EVERY == 0:
                now = clock()
                if now > deadline:
                    raise L3BudgetExceededError(deadline, now)
            score = sum(weight * vector.get(gram, 0.0) for gram, weight in query.items())
            if best is None or score > best.score:
                best = VectorHit(template_id, phrase, score)
        return best


@dataclass(frozen=True, slots=True)
class _Phrase:
    template_id: str
    text: str
    features: frozenset[str]
    #: Latin phrases match whole words ("wh" must not match "what"); CJK has no spaces.
    pattern: re.Pattern[str]

    @classmethod
    def build(cls, template_id: str, text: str) -> _Phrase:
        body = r"\s*".join(re.escape(part) for part in text.split())
        if text.isascii():
            body = rf"(?<![a-z0-9]){body}(?![a-z0-9])"
        return cls(template_id, text, token_features(text), re.compile(body))


class TemplateMatcher:
    """Chooses a :class:`SopTemplate` for a question. Thread-safe."""

    def __init__(
        self,
        catalog: SopCatalog,
        *,
        attribute_synonyms: Mapping[str, Sequence[str]] | None = None,
        product_names: Mapping[str, str] | None = None,
        config: MatcherConfig | None = None,
        index: VectorIndex | None = None,
        clock: Clock = time.perf_counter,
        registry: CollectorRegistry | None = None,
    ) -> None:
        """``attribute_synonyms``: attribute id → phrasings; ``product_names``: surface
        name → product category (the entities L2 masks and filters by)."""
        self.catalog = catalog
        self.config = config or MatcherConfig()
        self._clock = clock
        synonyms = attribute_synonyms or {}
        phrases: list[_Phrase] = []
        for template in catalog.templates:
            texts = list(template.phrases)
            for attribute in template.attributes:
                texts.extend(synonyms.get(attribute, ()))
            for text in dict.fromkeys(normalise(t) for t in texts):
                if text:
                    phrases.append(_Phrase.build(template.template_id, text))
        self._phrases = tuple(phrases)
        names = sorted(
            ((normalise(name), category) for name, category in (product_names or {}).items()),
            key=lambda item: -len(item[0]),
        )
        self._entities = tuple(
            (re.compile(r"\s*".join(re.escape(part) for part in name.split())), category)
            for name, category in names
            if name
        )
        self._index: VectorIndex = index or CharNgramIndex(
            (p.template_id, p.text) for p in self._phrases
        )
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._timeouts = 0
        self._prom_matches: PromCounter | None = None
        self._prom_timeouts: PromCounter | None = None
        if registry is not None:
            self._prom_matches = PromCounter(
                "cachecoh_template_matches",
                "SOP template choices by matcher tier.",
                ["tier"],
                registry=registry,
            )
            self._prom_timeouts = PromCounter(
                "cachecoh_template_l3_timeouts",
                "L3 vector searches abandoned at the time budget.",
                registry=registry,
            )

    def match(self, question: str, *, attribute: str | None = None) -> TemplateMatch:
        """The template for ``question``; ``attribute`` when the semantic layer knows it."""
        if attribute is not None:
            template = self.catalog.for_attribute(attribute)
            if template is not None:
                return self._count(TemplateMatch(template, MatchTier.SEMANTIC))
        text, categories = self._mask_entities(normalise(question))
        allowed = self._templates_for(categories)
        result = (
            self._match_l1(text, allowed)
            or self._match_l2(text, allowed)
            or self._match_l3(text, allowed)
        )
        return self._count(result)

    def stats(self) -> MatchStats:
        with self._lock:
            return MatchStats(by_tier=dict(self._counts), l3_timeouts=self._timeouts)

    def _mask_entities(self, text: str) -> tuple[str, frozenset[str]]:
        categories: set[str] = set()
        for pattern, category in self._entities:
            text, replaced = pattern.subn(_PRODUCT_MASK, text)
            if replaced:
                categories.add(category)
        return " ".join(text.split()), frozenset(categories)

    def _templates_for(self, categories: frozenset[str]) -> frozenset[str]:
        return frozenset(
            t.template_id
            for t in self.catalog.templates
            if not categories or not t.applies_to or categories & set(t.applies_to)
        )

    def _match_l1(self, text: str, allowed: frozenset[str]) -> TemplateMatch | None:
        found = [p for p in self._phrases if p.template_id in allowed and p.pattern.search(text)]
        if not found:
            return None
        longest = max(len(p.text) for p in found)
        winners = {p.template_id for p in found if len(p.text) == longest}
        if len(winners) != 1:
            return None  # ambiguous: let the similarity tiers weigh the whole question
        phrase = next(p for p in found if len(p.text) == longest)
        return TemplateMatch(self.catalog.by_id(phrase.template_id), MatchTier.L1, 1.0, phrase.text)

    def _match_l2(self, text: str, allowed: frozenset[str]) -> TemplateMatch | None:
        features = token_features(text.replace("⟨product⟩", " "))
        best: tuple[float, _Phrase] | None = None
        for phrase in self._phrases:
            if phrase.template_id not in allowed:
                continue
            score = jaccard(features, phrase.features)
            if best is None or score > best[0]:
                best = (score, phrase)
        if best is None or best[0] < self.config.l2_threshold:
            return None
        score, phrase = best
        return TemplateMatch(
            self.catalog.by_id(phrase.template_id), MatchTier.L2, score, phrase.text
        )

    def _match_l3(self, text: str, allowed: frozenset[str]) -> TemplateMatch:
        budget = self.config.l3_budget_seconds
        started = self._clock()
        query = text.replace("⟨product⟩", " ").strip()
        try:
            hit = self._index.search(query, deadline=started + budget, clock=self._clock)
        except L3BudgetExceededError:
            return self._timed_out()
        if self._clock() - started > budget:
            return self._timed_out()  # an index that ignores the deadline still loses
        if hit is None or hit.score < self.config.l3_threshold or hit.template_id not in allowed:
            return TemplateMatch(self.catalog.generic, MatchTier.GENERIC, 0.0)
        return TemplateMatch(
            self.catalog.by_id(hit.template_id), MatchTier.L3, hit.score, hit.phrase
        )

    def _timed_out(self) -> TemplateMatch:
        with self._lock:
            self._timeouts += 1
        if self._prom_timeouts is not None:
            self._prom_timeouts.inc()
        return TemplateMatch(self.catalog.generic, MatchTier.GENERIC, 0.0, l3_timed_out=True)

    def _count(self, result: TemplateMatch) -> TemplateMatch:
        with self._lock:
            self._counts[result.tier.value] += 1
        if self._prom_matches is not None:
            self._prom_matches.labels(tier=result.tier.value).inc()
        return result


def load_sop_catalog(path: Path = DEMO_DATA_DIR / "sop_templates.json") -> SopCatalog:
    return sop_catalog_from_dict(_read_json(path))


def load_matcher(
    data_dir: Path = DEMO_DATA_DIR,
    *,
    config: MatcherConfig | None = None,
    registry: CollectorRegistry | None = None,
    clock: Clock = time.perf_counter,
) -> TemplateMatcher:
    """A matcher over the shipped templates, vocabulary and catalog names."""
    vocabulary = load_attributes(data_dir)
    synonyms = {
        attribute_id: [form for forms in entry.synonyms.values() for form in forms]
        for attribute_id, entry in vocabulary.attributes.items()
    }
    products = load_catalog(data_dir).products
    names = {
        name: product.category
        for product in products
        for name in (*product.names_en, *product.names_zh)
    }
    return TemplateMatcher(
        load_sop_catalog(data_dir / "sop_templates.json"),
        attribute_synonyms=synonyms,
        product_names=names,
        config=config,
        registry=registry,
        clock=clock,
    )


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
