"""Parsing a chat-completions request: the contract (``core.openai_contract``), then the
normalised form the keys are derived from (pure, no I/O; keying is ``core.request_key``).

- every message text is NFC-normalised, control characters dropped, whitespace runs
  collapsed to one space and trimmed; all other message fields are kept;
- ``params`` are every request parameter that may change the output: everything but
  :data:`~services.core.openai_contract.NON_OUTPUT_PARAMS`, unknown parameters included
  (an unknown parameter may change the output); integral floats are written as integers
  so ``0`` and ``0.0`` give one key;
- a malformed request raises :class:`InvalidRequest` naming the offending field.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import orjson
from pydantic import ValidationError

from services.core.errors import CachecohError
from services.core.openai_contract import NON_OUTPUT_PARAMS, first_violation, validate_chat_request

_WHITESPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: The integers orjson can write (signed and unsigned 64-bit).
_INT_MIN = -(2**63)
_UINT_MAX = 2**64 - 1


class InvalidRequest(CachecohError):
    """A request the gateway cannot serve; ``field`` is the JSON path of the problem."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A validated chat-completions request with normalised message texts."""

    model: str
    #: Messages as plain JSON objects, texts normalised (may still contain personal data).
    messages: tuple[Mapping[str, Any], ...]
    #: Output-changing parameters, canonicalised (see module doc).
    params: Mapping[str, Any]
    stream: bool
    include_usage: bool

    def temperature(self, default: float) -> float:
        """The sampling temperature; ``default`` (the upstream's) when the client gave none."""
        value = self.params.get("temperature")
        return float(value) if value is not None else default


@dataclass(frozen=True, slots=True)
class Question:
    """The text a fingerprint is taken from, and whether the request is a single question."""

    text: str
    system_prompt: str | None
    single: bool
    conversation: tuple[tuple[str, str], ...]


def normalise_text(text: str) -> str:
    """NFC, no control characters, whitespace runs collapsed to one space, trimmed."""
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub("", text)
    return _WHITESPACE.sub(" ", text).strip()


def canonical_value(value: Any) -> Any:
    """A JSON value with integral floats as integers (where orjson can write them)."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        # Only where the integer is representable: orjson.loads reads integers beyond 64
        # bits as floats, and orjson.dumps refuses such an int (it was a 500).
        if math.isfinite(value) and value.is_integer() and _INT_MIN <= value <= _UINT_MAX:
            return int(value)
        return value
    if isinstance(value, Mapping):
        return {str(k): canonical_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical_value(v) for v in value]
    return value


def decode_json_body(raw: bytes, *, max_depth: int) -> Any:
    """The decoded body; :class:`InvalidRequest` if it is not JSON or nests deeper than
    ``max_depth`` (deep nesting once reached recursion limits in canonicalisation and
    orjson's encoder: 500s)."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest("body", "is not valid JSON") from exc
    # Fewer brackets than the bound cannot nest deeper: most bodies skip the walk.
    if raw.count(b"[") + raw.count(b"{") > max_depth and json_depth(body) > max_depth:
        raise InvalidRequest("body", f"nests deeper than {max_depth} levels")
    return body


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in a decoded JSON value (iterative)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in node)
    return deepest


def text_length(messages: Sequence[Mapping[str, Any]]) -> int:
    """Characters of message text (contents and text parts) in ``messages``."""
    return sum(len(text) for message in messages for text in message_texts(message))


def _normalise_content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return normalise_text(content) if isinstance(content, str) else None
    parts = []
    for part in content:
        if part["type"] == "text":
            part = {**part, "text": normalise_text(part["text"])}
        parts.append(canonical_value(part))
    return parts


def _message(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    message = {str(k): canonical_value(v) for k, v in raw.items()}
    message["content"] = _normalise_content(raw.get("content"))
    if isinstance(message.get("name"), str):
        message["name"] = normalise_text(message["name"])
    return MappingProxyType(message)


def parse_chat_request(body: Any) -> ChatRequest:
    """Validate a decoded JSON body; raises :class:`InvalidRequest` naming the field."""
    if not isinstance(body, dict):
        raise InvalidRequest("body", "must be a JSON object")
    try:
        contract = validate_chat_request(body)
    except ValidationError as exc:
        field, message = first_violation(exc)
        raise InvalidRequest(field, message) from exc
    params = {
        str(k): canonical_value(v)
        for k, v in body.items()
        if k not in NON_OUTPUT_PARAMS and v is not None
    }
    return ChatRequest(
        model=contract.model.strip(),
        messages=tuple(_message(m) for m in body["messages"]),
        params=MappingProxyType(params),
        stream=bool(contract.stream),
        include_usage=contract.include_usage,
    )


def message_texts(message: Mapping[str, Any]) -> list[str]:
    """The text parts of a message (its string content, or its text parts)."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if p.get("type") == "text"]
    return []


def redact_messages(
    messages: Sequence[Mapping[str, Any]], redact: Callable[[str], str]
) -> tuple[Mapping[str, Any], ...]:
    """The messages with every text passed through ``redact`` (names too)."""
    out = []
    for message in messages:
        copy = dict(message)
        content = message.get("content")
        if isinstance(content, str):
            copy["content"] = redact(content)
        elif isinstance(content, list):
            copy["content"] = [
                {**p, "text": redact(p["text"])} if p.get("type") == "text" else p for p in content
            ]
        if isinstance(message.get("name"), str):
            copy["name"] = redact(message["name"])
        out.append(MappingProxyType(copy))
    return tuple(out)


def question_of(messages: Sequence[Mapping[str, Any]]) -> Question | None:
    """The last user question, the client's system prompt and the earlier turns.

    ``None`` when the request cannot be rebuilt as a canonical prompt: the last message
    is not a user message, or a turn is a tool call or has a role other than
    system/developer/user/assistant (such requests are bypassed).
    """
    if not messages or messages[-1].get("role") != "user":
        return None
    system_parts: list[str] = []
    turns: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if message.get("tool_calls") or role == "tool":
            return None
        text = " ".join(message_texts(message))
        if isinstance(message.get("content"), list) and len(message_texts(message)) != len(
            message["content"]
        ):
            return None  # images or audio: not a text question
        if role in ("system", "developer"):
            if turns:
                return None  # an instruction in the middle of a conversation
            system_parts.append(text)
        elif index < len(messages) - 1:
            turns.append((str(role), text))
    question = " ".join(message_texts(messages[-1]))
    if not question:
        return None
    return Question(
        text=question,
        system_prompt="\n".join(p for p in system_parts if p) or None,
        single=not turns,
        conversation=tuple(turns),
    )
