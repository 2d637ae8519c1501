"""What redacting personal data (instead of bypassing it) and keying by answer language
cost or gain in semantic hit rate, on the labelled dev questions.

A seeded share of the questions gets synthetic personal data inserted (a valid mainland
mobile number, a name after a neutral cue, an e-mail address), in the question's own
language. The labels stay: inserted data changes nobody's answer class. Each variant is
replayed through the same scorer as ``cachecoh eval semantic`` (five seeded shuffles,
exact-key cache) under these key policies:

* ``clean``: the questions as labelled, keyed by fingerprint and answer language (the
  gateway's semantic key);
* ``clean_without_language``: the same, keyed by fingerprint only (the cost of the
  language key is the difference);
* ``personal_unredacted``: with the inserted data left in the text the extractor reads
  (no redaction, no bypass: what the raw values do to fingerprinting);
* ``personal_bypassed``: with the inserted data, every question with a finding bypassed
  (the gateway before issue 11);
* ``personal_redacted``: with the inserted data redacted into placeholders and the
  fingerprint taken from the redacted text (the gateway now).

``redactor_recall`` is the share of inserted values the redactor found.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from services.core.answer_language import detect_language
from services.core.redacted_text import for_extractor
from services.core.redaction import Redactor
from services.core.semantic.fingerprint import Fingerprint, SemanticDecision
from services.harness.evaluation.semantic import (
    KeyedCache,
    LabelledQuery,
    read_queries,
    score_cache,
)

Progress = Callable[[str, int, int], None]

_ZH_NAMES = ("王小明", "李建国", "陈静", "刘洋", "赵丽", "孙浩")
_EN_SURNAMES = ("Li", "Wang", "Chen", "Smith", "Garcia", "Zhao")
_HONORIFICS = ("Mr.", "Ms.", "Dr.")
_ZH_CARRIERS = (
    "你好，我是{name}，电话{phone}，{q}",
    "{q} 联系人：{name}，手机{phone}",
    "{q} 邮箱{email}",
)
_EN_CARRIERS = (
    "Hi, this is {honorific} {surname}, phone {phone}. {q}",
    "{q} (email {email})",
)


@dataclass(frozen=True, slots=True)
class PersonalVariant:
    text: str
    values: tuple[str, ...]


def personal_variant(query: LabelledQuery, rng: random.Random) -> PersonalVariant:
    """``query`` with synthetic personal data inserted in its language's words."""
    phone = f"13{rng.randrange(5, 10)}{rng.randrange(10**8):08d}"
    email = f"shopper{rng.randrange(10**6)}@example.com"
    if detect_language(query.text) == "zh":
        carrier = rng.choice(_ZH_CARRIERS)
        name = rng.choice(_ZH_NAMES)
        text = carrier.format(q=query.text, name=name, phone=phone, email=email)
        values = (name, phone) if "{name}" in carrier else (email,)
    else:
        carrier = rng.choice(_EN_CARRIERS)
        surname = rng.choice(_EN_SURNAMES)
        honorific = rng.choice(_HONORIFICS)
        text = carrier.format(
            q=query.text, honorific=honorific, surname=surname, phone=phone, email=email
        )
        values = (surname, phone) if "{surname}" in carrier else (email,)
    return PersonalVariant(text, values)


def _key(decision: SemanticDecision, language: str | None) -> str | None:
    if not isinstance(decision, Fingerprint):
        return None
    return decision.key if language is None else f"{decision.key}|{language}"


def run_redaction_eval(
    queries_path: Path,
    decide: Callable[[str], SemanticDecision],
    redactor: Redactor,
    *,
    seed: int = 0,
    share: float = 0.5,
    progress: Progress | None = None,
) -> dict[str, Any]:
    queries = read_queries(queries_path)
    rng = random.Random(seed)  # noqa: S311 - reproducible synthetic data, not crypto
    clean_keys: list[str | None] = []
    plain_keys: list[str | None] = []
    bypassed_keys: list[str | None] = []
    unredacted_keys: list[str | None] = []
    redacted_keys: list[str | None] = []
    personal: list[LabelledQuery] = []
    inserted = found = with_data = 0
    for done, query in enumerate(queries, start=1):
        decision = decide(query.text)
        language = detect_language(query.text)
        clean_keys.append(_key(decision, language))
        plain_keys.append(_key(decision, None))
        if rng.random() < share:
            variant = personal_variant(query, rng)
            with_data += 1
            redaction = redactor.redact(variant.text)
            inserted += len(variant.values)
            found += sum(value not in redaction.text for value in variant.values)
            personal.append(replace(query, text=variant.text))
            raw_key = _key(decide(variant.text), language)
            unredacted_keys.append(raw_key)
            bypassed_keys.append(None if redaction.found else raw_key)
            redacted = decide(for_extractor(redaction.text))
            redacted_keys.append(_key(redacted, detect_language(redaction.text)))
        else:
            personal.append(query)
            unredacted_keys.append(clean_keys[-1])
            bypassed_keys.append(clean_keys[-1])
            redacted_keys.append(clean_keys[-1])
        if progress is not None:
            progress("fingerprints", done, len(queries))
    scores = {
        "clean": score_cache(queries, KeyedCache(clean_keys), seed),
        "clean_without_language": score_cache(queries, KeyedCache(plain_keys), seed),
        "personal_unredacted": score_cache(personal, KeyedCache(unredacted_keys), seed),
        "personal_bypassed": score_cache(personal, KeyedCache(bypassed_keys), seed),
        "personal_redacted": score_cache(personal, KeyedCache(redacted_keys), seed),
    }
    return {
        "queries": len(queries),
        "with_personal_data": with_data,
        "share": share,
        "seed": seed,
        "redactor_recall": round(found / inserted, 6) if inserted else 0.0,
        "policies": scores,
        "hit_rate": {name: s["hit_rate"] for name, s in scores.items()},
        "language_key_cost": round(
            scores["clean_without_language"]["hit_rate"] - scores["clean"]["hit_rate"], 6
        ),
        "redaction_gain_over_bypass": round(
            scores["personal_redacted"]["hit_rate"] - scores["personal_bypassed"]["hit_rate"], 6
        ),
        "redaction_cost_vs_clean": round(
            scores["clean"]["hit_rate"] - scores["personal_redacted"]["hit_rate"], 6
        ),
    }
