"""Replaying labelled questions against a semantic cache and scoring it.

The cache starts empty. Each of five seeded shuffles replays every question once: a
question with a fingerprint looks up its key; on a miss the cache is filled with an answer
labelled by the question's true ``cid`` (``None`` for a bypass question, which is itself a
leak). Scores are averaged over the shuffles:

* ``hit_rate``: correct hits / questions whose ``cid`` was seen earlier in the shuffle;
* ``false_hit_rate``: hits that served another class's answer / all questions;
* ``bypass_leaks``: bypass-labelled questions served from or stored into the cache;
* ``coverage``: cacheable questions that got a fingerprint.

Besides the replay, ``per_question`` scores every decision on its own (meaningful also on
sets where most classes occur once): of the cacheable questions, the share with exactly
the labelled fingerprint (``right``), with none (``none``: no fingerprint or a bypass) and
with another class's (``wrong``: it would plant an answer under another class's key); of
the bypass questions, those that got a fingerprint (``leaked``).

Decisions are computed once per question (the extractor is deterministic), so a shuffle
replay is only dictionary work.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from services.core.errors import CachecohError
from services.core.semantic.fingerprint import Bypass, Fingerprint, SemanticDecision

SHUFFLES = 5
WORST_ERRORS = 20


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    query_id: str
    text: str
    lang: str
    intent: str
    cacheable: bool
    cid: str | None


class QueryFileError(CachecohError, ValueError):
    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


def read_queries(path: Path) -> list[LabelledQuery]:
    """Read a ``queries_dev.jsonl``-format file (any ids)."""
    out: list[LabelledQuery] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            out.append(
                LabelledQuery(
                    query_id=str(raw["id"]),
                    text=str(raw["text"]),
                    lang=str(raw.get("lang", "unknown")),
                    intent=str(raw["intent"]),
                    cacheable=bool(raw["cacheable"]),
                    cid=str(raw["cid"]) if raw.get("cid") is not None else None,
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise QueryFileError(path, number, f"not a labelled query: {exc}") from exc
    return out


def split_part(
    queries: Sequence[LabelledQuery], part: str, ratio: float = 0.7
) -> list[LabelledQuery]:
    """A fixed split by a hash of the id: ``develop`` (ratio) or ``heldback`` (the rest)."""
    if part == "all":
        return list(queries)
    if part not in {"develop", "heldback"}:
        raise ValueError(f"unknown part {part!r}")
    threshold = round(ratio * 10)

    def in_develop(q: LabelledQuery) -> bool:
        return int(hashlib.sha256(q.query_id.encode()).hexdigest(), 16) % 10 < threshold

    return [q for q in queries if in_develop(q) == (part == "develop")]


class ReplayCache(Protocol):
    """What a replay needs from a cache under test; queries are referred to by index."""

    def reset(self) -> None: ...

    def admits(self, index: int) -> bool:
        """Whether the query looks up and fills at all (False: bypass or no fingerprint)."""
        ...

    def lookup(self, index: int) -> tuple[bool, str | None]:
        """(hit, cid of the answer served)."""
        ...

    def store(self, index: int, cid: str | None) -> None: ...


class KeyedCache:
    """The fingerprint cache: an exact-key dictionary."""

    def __init__(self, keys: Sequence[str | None]) -> None:
        self._keys = keys
        self._entries: dict[str, str | None] = {}

    def reset(self) -> None:
        self._entries = {}

    def admits(self, index: int) -> bool:
        return self._keys[index] is not None

    def lookup(self, index: int) -> tuple[bool, str | None]:
        key = self._keys[index]
        if key is not None and key in self._entries:
            return True, self._entries[key]
        return False, None

    def store(self, index: int, cid: str | None) -> None:
        key = self._keys[index]
        if key is not None:
            self._entries[key] = cid


@dataclass
class _Tally:
    queries: int = 0
    seen_before: int = 0
    correct_hits: int = 0
    false_hits: int = 0
    leaks: int = 0
    cacheable: int = 0
    covered: int = 0

    def add(self, other: _Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def scores(self, runs: int) -> dict[str, float | int]:
        return {
            "queries": self.queries // runs,
            "hit_rate": _ratio(self.correct_hits, self.seen_before),
            "false_hit_rate": _ratio(self.false_hits, self.queries),
            "bypass_leaks": self.leaks / runs,
            "coverage": _ratio(self.covered, self.cacheable),
            "correct_hits": self.correct_hits / runs,
            "false_hits": self.false_hits / runs,
            "seen_before": self.seen_before / runs,
        }


def _ratio(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 6) if denominator else 0.0


@dataclass(frozen=True, slots=True)
class _Event:
    index: int
    kind: str  # "false_hit" | "leak" | "miss"
    served: str | None


def replay(
    queries: Sequence[LabelledQuery], cache: ReplayCache, seed: int, shuffles: int = SHUFFLES
) -> tuple[dict[str, _Tally], list[_Event]]:
    """Replay ``shuffles`` seeded orders; tallies per group ("all", "intent:x", "lang:y")."""
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    events: list[_Event] = []
    for run in range(shuffles):
        order = list(range(len(queries)))
        random.Random(seed * 1000 + run).shuffle(order)  # noqa: S311 - reproducible shuffles, not crypto
        cache.reset()
        seen: set[str] = set()
        for index in order:
            query = queries[index]
            tally = _Tally(queries=1)
            admitted = cache.admits(index)
            was_seen = query.cid is not None and query.cid in seen
            tally.seen_before = int(query.cacheable and was_seen)
            if query.cacheable:
                tally.cacheable = 1
                tally.covered = int(admitted)
            if admitted:
                hit, served = cache.lookup(index)
                if hit:
                    if query.cacheable and served == query.cid:
                        tally.correct_hits = 1
                    else:
                        tally.false_hits = 1
                        events.append(_Event(index, "false_hit", served))
                else:
                    cache.store(index, query.cid)
                if not query.cacheable:
                    tally.leaks = 1
                    events.append(_Event(index, "leak", served if hit else None))
            if tally.seen_before and not tally.correct_hits and not tally.false_hits:
                events.append(_Event(index, "miss", None))
            if query.cid is not None:
                seen.add(query.cid)
            for group in ("all", f"intent:{query.intent}", f"lang:{query.lang}"):
                tallies[group].add(tally)
    return tallies, events


def score_cache(
    queries: Sequence[LabelledQuery], cache: ReplayCache, seed: int, shuffles: int = SHUFFLES
) -> dict[str, Any]:
    """Overall scores only (used for baselines)."""
    tallies, _ = replay(queries, cache, seed, shuffles)
    return tallies["all"].scores(shuffles)


def _summarise(
    tallies: Mapping[str, _Tally], shuffles: int
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    overall = tallies["all"].scores(shuffles)
    by_intent = {
        group.split(":", 1)[1]: t.scores(shuffles)
        for group, t in sorted(tallies.items())
        if group.startswith("intent:")
    }
    by_lang = {
        group.split(":", 1)[1]: t.scores(shuffles)
        for group, t in sorted(tallies.items())
        if group.startswith("lang:")
    }
    return overall, by_intent, by_lang


def describe(decision: SemanticDecision) -> str:
    if isinstance(decision, Fingerprint):
        return f"fingerprint {decision.cid}"
    if isinstance(decision, Bypass):
        return f"bypass {decision.intent} ({decision.reason})"
    return f"no fingerprint ({decision.reason})"


TIMING_REPEATS = 3


def timed_decision(
    decide: Callable[[str], SemanticDecision], text: str, repeats: int = TIMING_REPEATS
) -> tuple[SemanticDecision, float]:
    """The decision and the fastest of ``repeats`` runs (seconds): on a shared machine one
    run's time is mostly the scheduler's."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        decision = decide(text)
        best = min(best, time.perf_counter() - started)
    return decision, best


def evaluate_extractor(
    queries: Sequence[LabelledQuery],
    decide: Callable[[str], SemanticDecision],
    seed: int = 0,
    shuffles: int = SHUFFLES,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Score the fingerprint cache on ``queries``."""
    decisions: list[SemanticDecision] = []
    timings: list[float] = []
    for number, query in enumerate(queries, start=1):
        decision, best = timed_decision(decide, query.text)
        decisions.append(decision)
        timings.append(best)
        if progress is not None:
            progress(number)
    keys = [d.key if isinstance(d, Fingerprint) else None for d in decisions]
    tallies, events = replay(queries, KeyedCache(keys), seed, shuffles)
    overall, by_intent, by_lang = _summarise(tallies, shuffles)
    decided: dict[str, Counter[str]] = defaultdict(Counter)
    for query, decision in zip(queries, decisions, strict=True):
        outcome = (
            "fingerprint"
            if isinstance(decision, Fingerprint)
            else f"bypass:{decision.intent}"
            if isinstance(decision, Bypass)
            else "no_fingerprint"
        )
        decided[query.intent][outcome] += 1
    for intent, counts in decided.items():
        by_intent.setdefault(intent, {})["decisions"] = dict(counts.most_common())
        cid_exact = sum(
            1
            for q, d in zip(queries, decisions, strict=True)
            if q.intent == intent and isinstance(d, Fingerprint) and d.cid == q.cid
        )
        by_intent[intent]["fingerprint_equals_label"] = cid_exact
    return {
        **overall,
        "per_question": per_question(queries, decisions),
        "by_intent": by_intent,
        "by_lang": by_lang,
        "worst_errors": _worst(queries, events, [describe(d) for d in decisions], shuffles),
        "latency_ms": latency_summary(timings),
    }


def per_question(
    queries: Sequence[LabelledQuery], decisions: Sequence[SemanticDecision]
) -> dict[str, float | int]:
    """Each decision scored on its own, without a replay (see the module docstring)."""
    right = wrong = no_fingerprint = bypassed = leaked = bypass_questions = 0
    for query, decision in zip(queries, decisions, strict=True):
        fingerprinted = isinstance(decision, Fingerprint)
        if not query.cacheable:
            bypass_questions += 1
            leaked += int(fingerprinted)
        elif isinstance(decision, Fingerprint):
            if decision.cid == query.cid:
                right += 1
            else:
                wrong += 1
        elif isinstance(decision, Bypass):
            bypassed += 1
        else:
            no_fingerprint += 1
    cacheable = right + wrong + no_fingerprint + bypassed
    return {
        "cacheable": cacheable,
        "right": _ratio(right, cacheable),
        "none": _ratio(no_fingerprint + bypassed, cacheable),
        "wrong": _ratio(wrong, cacheable),
        "wrong_count": wrong,
        "none_bypassed": _ratio(bypassed, cacheable),
        "bypass_questions": bypass_questions,
        "leaked": _ratio(leaked, bypass_questions),
        "leaked_count": leaked,
    }


def _worst(
    queries: Sequence[LabelledQuery],
    events: Iterable[_Event],
    decisions: Sequence[str],
    shuffles: int,
) -> list[dict[str, Any]]:
    severity = {"leak": 0, "false_hit": 1, "miss": 2}
    counted: Counter[tuple[int, str]] = Counter()
    served: dict[tuple[int, str], str | None] = {}
    for event in events:
        counted[(event.index, event.kind)] += 1
        served.setdefault((event.index, event.kind), event.served)
    ranked = sorted(counted.items(), key=lambda item: (severity[item[0][1]], -item[1], item[0][0]))
    out = []
    for (index, kind), count in ranked[:WORST_ERRORS]:
        query = queries[index]
        out.append(
            {
                "id": query.query_id,
                "kind": kind,
                "text": query.text,
                "label_intent": query.intent,
                "label_cid": query.cid,
                "decision": decisions[index],
                "served_cid": served[(index, kind)] if kind != "miss" else None,
                "per_shuffle": round(count / shuffles, 3),
            }
        )
    return out


def latency_summary(timings: Sequence[float]) -> dict[str, float]:
    """p50, p99 and mean of ``timings`` (seconds), in milliseconds."""
    if not timings:
        return {}
    ordered = sorted(timings)
    return {
        "p50": round(statistics.median(ordered) * 1000, 4),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 4),
        "mean": round(statistics.fmean(ordered) * 1000, 4),
    }


#: Synthetic hostile shapes for the length-scaling measurement: one long Latin run (no
#: spaces), one long Chinese run with numerals, and a mix of letters, digits and CJK.
_SCALING_UNITS = ("a", "苹果十五多少钱续航", "ab一c2 华为x")
SCALING_LENGTHS = (1000, 2000, 4000, 8000)


#: Each shape is timed this many times and the fastest run kept: one run of a few
#: milliseconds on a shared machine is mostly the scheduler's noise, not the extractor's cost.
SCALING_REPEATS = 3


def length_scaling(
    decide: Callable[[str], SemanticDecision],
    lengths: Sequence[int] = SCALING_LENGTHS,
    repeats: int = SCALING_REPEATS,
) -> dict[str, Any]:
    """Worst time over the synthetic shapes per question length (each shape's fastest of
    ``repeats`` runs), and the ratio of the longest to the shortest per character (≈ 1
    means linear)."""
    worst: dict[int, float] = {}
    for length in lengths:
        times = []
        for unit in _SCALING_UNITS:
            text = (unit * (length // len(unit) + 1))[:length]
            fastest = float("inf")
            for _ in range(repeats):
                started = time.perf_counter()
                decide(text)
                fastest = min(fastest, time.perf_counter() - started)
            times.append(fastest)
        worst[length] = max(times)
    first, last = lengths[0], lengths[-1]
    per_char_ratio = (worst[last] / last) / (worst[first] / first) if worst[first] else 0.0
    return {
        "worst_ms_by_length": {str(n): round(t * 1000, 2) for n, t in worst.items()},
        "per_char_cost_ratio_longest_vs_shortest": round(per_char_ratio, 2),
    }


def meets_targets(report: Mapping[str, Any]) -> dict[str, bool]:
    return {
        "hit_rate>=0.95": report["hit_rate"] >= 0.95,
        "false_hit_rate<=0.001": report["false_hit_rate"] <= 0.001,
        "bypass_leaks==0": report["bypass_leaks"] == 0,
    }
