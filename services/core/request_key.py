"""``request → canonical form → key`` for both answer-cache layers (pure, no I/O).

Request layer: SHA-256 (as an HMAC keyed by a deployment secret, salted with tenant and
namespace) over a canonical form of everything that changes the output:

- messages: every text NFC-normalised, control characters dropped, whitespace runs
  collapsed to one space and trimmed; personal data replaced by placeholders (the
  caller redacts, see :func:`redact_messages`); all other message fields kept;
- the model;
- every other request parameter (temperature, top_p, max_tokens, seed, stop, tools,
  response_format, and any parameter this module does not know, since an unknown
  parameter may change the output), except those listed in :data:`NON_OUTPUT_PARAMS`;
- serialised as JSON with sorted keys and compact separators; integral floats are
  written as integers so ``0`` and ``0.0`` give one key.

Semantic layer: the same salting over the material of
``services.core.canonical_question.semantic_key_material``: paraphrases share it.

A malformed request raises :class:`InvalidRequest` naming the offending field.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import orjson

from services.core.errors import CachecohError

#: Parameters that never change the answer's content; they stay out of every key.
NON_OUTPUT_PARAMS = frozenset(
    {
        "messages",
        "model",
        "stream",
        "stream_options",
        "user",
        "metadata",
        "store",
        "service_tier",
        "cache_salt",
        "prompt_cache_key",
        "safety_identifier",
    }
)
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
KEY_VERSION = "rk1"
NAMESPACE_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_WHITESPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SEP = b"\x1f"
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


def _canonical_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        # Only where the integer is representable: orjson.loads reads integers beyond 64
        # bits as floats, and orjson.dumps refuses such an int (it was a 500).
        if math.isfinite(value) and value.is_integer() and _INT_MIN <= value <= _UINT_MAX:
            return int(value)
        return value
    if isinstance(value, Mapping):
        return {str(k): _canonical_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical_value(v) for v in value]
    return value


def _number(body: Mapping[str, Any], name: str, low: float, high: float) -> None:
    value = body.get(name)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRequest(name, "must be a number")
    if not (low <= value <= high) or not math.isfinite(value):
        raise InvalidRequest(name, f"must be between {low:g} and {high:g}")


def _integer(body: Mapping[str, Any], name: str, low: int, high: int | None = None) -> None:
    value = body.get(name)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(name, "must be an integer")
    if value < low or (high is not None and value > high):
        raise InvalidRequest(name, f"must be >= {low}" + (f" and <= {high}" if high else ""))


def _typed(body: Mapping[str, Any], name: str, kind: type, what: str) -> None:
    value = body.get(name)
    if value is None:
        return
    # bool is an int subclass: only a real bool is a boolean, and no bool is anything else.
    valid = (
        isinstance(value, bool)
        if kind is bool
        else (isinstance(value, kind) and not isinstance(value, bool))
    )
    if not valid:
        raise InvalidRequest(name, f"must be {what}")


def _validate_params(body: Mapping[str, Any]) -> None:
    _number(body, "temperature", 0.0, 2.0)
    _number(body, "top_p", 0.0, 1.0)
    _number(body, "presence_penalty", -2.0, 2.0)
    _number(body, "frequency_penalty", -2.0, 2.0)
    _integer(body, "max_tokens", 1)
    _integer(body, "max_completion_tokens", 1)
    _integer(body, "n", 1, 128)
    _integer(body, "seed", -(2**63), 2**64)
    _integer(body, "top_logprobs", 0, 20)
    _typed(body, "stream", bool, "a boolean")
    _typed(body, "logprobs", bool, "a boolean")
    _typed(body, "tools", list, "an array")
    _typed(body, "response_format", dict, "an object")
    _typed(body, "stream_options", dict, "an object")
    _typed(body, "metadata", dict, "an object")
    _typed(body, "user", str, "a string")
    stop = body.get("stop")
    if stop is not None and not (
        isinstance(stop, str)
        or (isinstance(stop, list) and len(stop) <= 4 and all(isinstance(s, str) for s in stop))
    ):
        raise InvalidRequest("stop", "must be a string or an array of at most 4 strings")
    tool_choice = body.get("tool_choice")
    if tool_choice is not None and not isinstance(tool_choice, str | dict):
        raise InvalidRequest("tool_choice", "must be a string or an object")


def _normalise_content(content: Any, path: str) -> Any:
    if content is None or isinstance(content, str):
        return normalise_text(content) if isinstance(content, str) else None
    if not isinstance(content, list):
        raise InvalidRequest(path, "must be a string, an array of content parts or null")
    parts = []
    for index, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise InvalidRequest(f"{path}[{index}]", "must be an object with a 'type'")
        if part["type"] == "text":
            if not isinstance(part.get("text"), str):
                raise InvalidRequest(f"{path}[{index}].text", "must be a string")
            part = {**part, "text": normalise_text(part["text"])}
        parts.append(_canonical_value(part))
    return parts


def _message(raw: Any, index: int) -> Mapping[str, Any]:
    path = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise InvalidRequest(path, "must be an object")
    role = raw.get("role")
    if role not in ROLES:
        raise InvalidRequest(f"{path}.role", f"must be one of {', '.join(sorted(ROLES))}")
    if "content" not in raw and not raw.get("tool_calls"):
        raise InvalidRequest(f"{path}.content", "is required")
    message = {str(k): _canonical_value(v) for k, v in raw.items()}
    message["content"] = _normalise_content(raw.get("content"), f"{path}.content")
    if isinstance(message.get("name"), str):
        message["name"] = normalise_text(message["name"])
    return MappingProxyType(message)


def parse_chat_request(body: Any) -> ChatRequest:
    """Validate a decoded JSON body; raises :class:`InvalidRequest` naming the field."""
    if not isinstance(body, dict):
        raise InvalidRequest("body", "must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise InvalidRequest("model", "is required and must be a non-empty string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InvalidRequest("messages", "must be a non-empty array")
    _validate_params(body)
    stream_options = body.get("stream_options") or {}
    params = {
        str(k): _canonical_value(v)
        for k, v in body.items()
        if k not in NON_OUTPUT_PARAMS and v is not None
    }
    return ChatRequest(
        model=model.strip(),
        messages=tuple(_message(m, i) for i, m in enumerate(messages)),
        params=MappingProxyType(params),
        stream=bool(body.get("stream", False)),
        include_usage=bool(stream_options.get("include_usage", False)),
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


def canonical_request(
    model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> bytes:
    """The request layer's canonical form: compact JSON, sorted keys."""
    return orjson.dumps(
        {"v": KEY_VERSION, "model": model, "messages": list(messages), "params": params},
        option=orjson.OPT_SORT_KEYS,
        default=dict,
    )


def salted_digest(secret: bytes, tenant: str, namespace: str, canonical: bytes) -> str:
    """HMAC-SHA256 over tenant, namespace and a canonical form: no cross-tenant keys."""
    if not secret:
        raise ValueError("the request-key secret is empty")
    if not tenant:
        raise ValueError("a key needs an authenticated tenant")
    material = tenant.encode() + _SEP + namespace.encode() + _SEP + canonical
    return hmac.new(secret, material, hashlib.sha256).hexdigest()


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
