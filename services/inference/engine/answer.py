"""Extractive answers from the facts block of a canonical prompt (pure).

The offline engine does not generate language: it finds the facts blocks the prompt
builder wrote (``<facts product=".." spec_version="N">{json}</facts>``), picks the asked
attribute and constraint from the question, and phrases a short answer with the product
name, the value(s) and the spec version. So an answer always shows which version of the
facts it was built from, which is what the coherence tests need to see.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from services.core.prompt import FACTS_BLOCK_PATTERN, message_text

#: Attributes listed when the question names none of several in the facts.
MAX_LISTED_ATTRIBUTES = 4

NO_FACTS_ANSWER = (
    "I don't have product facts for this question, so I can't answer it reliably. "
    "A human agent can help."
)


@dataclass(frozen=True, slots=True)
class FactsBlock:
    product_id: str
    spec_version: int
    name: str
    specs: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Surface forms that tie a question's words to attribute and constraint ids."""

    #: attribute id -> phrasings ("battery_life" -> "续航", "battery life", ...)
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    #: constraint value id -> phrasings ("video_playback" -> "看视频", ...)
    constraint_values: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    @classmethod
    def from_attributes_json(cls, raw: Mapping[str, Any]) -> Vocabulary:
        attributes = {
            attribute_id: tuple(
                form for forms in entry.get("synonyms", {}).values() for form in forms
            )
            for attribute_id, entry in raw.get("attributes", {}).items()
        }
        values: dict[str, tuple[str, ...]] = {}
        for by_value in raw.get("constraint_values", {}).values():
            for value_id, forms in by_value.items():
                values[value_id] = values.get(value_id, ()) + tuple(
                    form for surface in forms.values() for form in surface
                )
        return cls(MappingProxyType(attributes), MappingProxyType(values))


def _compact(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _forms(identifier: str, extra: Sequence[str]) -> list[str]:
    forms = [identifier, identifier.replace("_", " "), *extra]
    return [c for c in (_compact(form) for form in forms) if c]


def parse_facts_blocks(text: str) -> tuple[FactsBlock, ...]:
    """Every well-formed facts block in ``text``, in order; malformed JSON is skipped."""
    blocks = []
    for match in FACTS_BLOCK_PATTERN.finditer(text):
        try:
            body = json.loads(match.group("body"))
        except json.JSONDecodeError:
            continue
        if not isinstance(body, dict):
            continue
        specs = body.get("specs", {})
        blocks.append(
            FactsBlock(
                product_id=match.group("product"),
                spec_version=int(match.group("version")),
                name=str(body.get("name") or match.group("product")),
                specs=specs if isinstance(specs, dict) else {},
            )
        )
    return tuple(blocks)


def _longest_mention(question: str, forms: Sequence[str]) -> int:
    return max((len(form) for form in forms if form in question), default=0)


def _asked_attributes(block: FactsBlock, question: str, vocabulary: Vocabulary) -> list[str]:
    attributes = sorted(block.specs)
    if len(attributes) <= 1:
        return attributes
    scored = {
        attribute: _longest_mention(
            question, _forms(attribute, vocabulary.attributes.get(attribute, ()))
        )
        for attribute in attributes
    }
    best = max(scored.values())
    if best == 0:
        return attributes[:MAX_LISTED_ATTRIBUTES]
    return [attribute for attribute in attributes if scored[attribute] == best]


def _scalar(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_spec(spec: Any, question: str = "", vocabulary: Vocabulary | None = None) -> str:
    """A spec value as short text; for variant tables, the asked variant(s) or all."""
    vocabulary = vocabulary or Vocabulary()
    if isinstance(spec, Mapping) and "by" in spec and isinstance(spec.get("values"), Mapping):
        variants: Mapping[str, Any] = spec["values"]
        scored = {
            variant: _longest_mention(
                question, _forms(variant, vocabulary.constraint_values.get(variant, ()))
            )
            for variant in variants
        }
        best = max(scored.values(), default=0)
        chosen = [v for v in variants if best == 0 or scored[v] == best]
        return "; ".join(f"{v.replace('_', ' ')}: {render_spec(variants[v])}" for v in chosen)
    if isinstance(spec, Mapping) and "value" in spec:
        value, unit, note = spec["value"], spec.get("unit"), spec.get("note")
        if isinstance(value, list | tuple):
            joiner = " x " if unit and all(isinstance(v, int | float) for v in value) else ", "
            text = joiner.join(_scalar(v) for v in value)
        else:
            text = _scalar(value)
        if unit:
            text = f"{text} {unit}"
        return f"{text} ({note})" if note else text
    if isinstance(spec, Mapping):
        return "; ".join(f"{k.replace('_', ' ')}: {render_spec(v)}" for k, v in spec.items())
    if isinstance(spec, list | tuple):
        return ", ".join(render_spec(v) for v in spec)
    return _scalar(spec)


def answer_block(block: FactsBlock, question: str, vocabulary: Vocabulary) -> str:
    compact_question = _compact(question)
    attributes = _asked_attributes(block, compact_question, vocabulary)
    if not attributes:
        facts = "no facts on record for this question"
    else:
        facts = "; ".join(
            f"{a.replace('_', ' ')}: {render_spec(block.specs[a], compact_question, vocabulary)}"
            for a in attributes
        )
    return f"{block.name} — {facts}. (spec_version {block.spec_version})"


def compose_answer(messages: Sequence[Mapping[str, Any]], vocabulary: Vocabulary) -> str:
    """The answer to the last user message, from the facts in the system message(s)."""
    context = "\n".join(
        message_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    question = next(
        (message_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"),
        "",
    )
    blocks = parse_facts_blocks(context)
    if not blocks:
        return NO_FACTS_ANSWER
    return " ".join(answer_block(block, question, vocabulary) for block in blocks)
