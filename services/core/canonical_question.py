"""Canonical questions: the one question the model is asked for a fingerprint (pure).

The key-completeness rule (DESIGN.md): what is not in a cache key must not reach the
model. A semantic entry is keyed by (model, keyed system prompt, the gateway's sampling
and the client's other output parameters, fingerprint, answer language), so its answer
is generated from exactly those: the question is *rendered* from the fingerprint, in the
answer language, from the attribute vocabulary (``attributes.json``: the first synonym
of the attribute and of each constraint value in that language) and the product's own
catalog name. The asker's wording never reaches the model on this path, so an injected
instruction or a stray name in one asker's question cannot reach another asker.

Rendering is one pattern per language, filled from the vocabulary (no per-question
table); adding a language means adding its vocabulary column and one pattern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import orjson

from services.core.catalog import ProductFacts
from services.core.errors import CachecohError
from services.core.semantic.fingerprint import Fingerprint

#: Bumped when rendering or the semantic key's material changes: old keys never collide.
SEMANTIC_KEY_VERSION = "sk2"

#: ``{subject}``, ``{qualifiers}`` (already bracketed, or empty) and ``{attribute}``.
_PATTERNS = MappingProxyType(
    {
        "en": ("{subject}{qualifiers}: {attribute}?", " ({values})", ", "),
        "zh": ("{subject}{qualifiers}：{attribute}？", "（{values}）", "，"),
    }
)


class VocabularyError(CachecohError):
    """``attributes.json`` lacks a word a canonical question needs."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"attributes.json {path}: {message}")


@dataclass(frozen=True, slots=True)
class QuestionVocabulary:
    """Per language: attribute id → word, (constraint key, value) → word."""

    attributes: Mapping[str, Mapping[str, str]]
    values: Mapping[tuple[str, str], Mapping[str, str]]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(_PATTERNS)

    @classmethod
    def from_attributes_json(cls, raw: Mapping[str, Any]) -> QuestionVocabulary:
        """Every attribute and constraint value needs a word in every supported language."""
        attributes: dict[str, Mapping[str, str]] = {}
        for attribute, entry in raw.get("attributes", {}).items():
            synonyms = entry.get("synonyms", {})
            attributes[attribute] = MappingProxyType(
                {
                    lang: _first(synonyms.get(lang), f"$.attributes.{attribute}.synonyms.{lang}")
                    for lang in _PATTERNS
                }
            )
        values: dict[tuple[str, str], Mapping[str, str]] = {}
        for key, by_value in raw.get("constraint_values", {}).items():
            for value, forms in by_value.items():
                values[(key, value)] = MappingProxyType(
                    {
                        lang: _first(forms.get(lang), f"$.constraint_values.{key}.{value}.{lang}")
                        for lang in _PATTERNS
                    }
                )
        return cls(MappingProxyType(attributes), MappingProxyType(values))

    def render(self, fingerprint: Fingerprint, language: str, subject: str) -> str:
        """The canonical question of ``fingerprint`` in ``language`` about ``subject``."""
        pattern, bracket, joiner = _PATTERNS[language]
        attribute = self.attributes.get(fingerprint.attribute, {}).get(
            language, fingerprint.attribute.replace("_", " ")
        )
        words = [
            self.values.get((key, value), {}).get(language, value)
            for key, value in fingerprint.constraints
        ]
        qualifiers = bracket.format(values=joiner.join(words)) if words else ""
        return pattern.format(subject=subject, qualifiers=qualifiers, attribute=attribute)


def subject_name(facts: tuple[ProductFacts, ...], product: str, language: str) -> str:
    """The product's first catalog name in ``language`` (then English, then its id)."""
    for item in facts:
        if item.product_id == product:
            names = item.names_zh if language == "zh" else item.names_en
            return (names or item.names_en or (item.product_id,))[0]
    return product


def _first(forms: Any, path: str) -> str:
    if not isinstance(forms, list) or not forms or not isinstance(forms[0], str):
        raise VocabularyError(path, "needs at least one word")
    return forms[0]


def semantic_key_material(
    *,
    model: str,
    system_prompt: str | None,
    params: Mapping[str, Any],
    fingerprint: Fingerprint,
    language: str,
) -> bytes:
    """Everything a semantic answer is generated from, besides the facts (whose changes
    the tag generations track): the canonical form the semantic digest is taken over."""
    return orjson.dumps(
        {
            "v": SEMANTIC_KEY_VERSION,
            "model": model,
            "system": system_prompt,
            "params": params,
            "fingerprint": fingerprint.key,
            "language": language,
        },
        option=orjson.OPT_SORT_KEYS,
        default=dict,
    )
