"""Per-response identity of a chat completion (pure).

A cached answer is served to many requests, but each response is its own object in the
OpenAI API: it gets a fresh ``id`` and ``created``. An entry stores the *stable part*
(the completion without those two, :func:`stable_bytes`); a hit writes the fresh pair in
front of it (:func:`identified`, a byte splice: no JSON parse on the hit path). The ETag
is taken over the stable part, so it is equal for every serving of one stored answer.
Also here: what the OpenAI schema requires that upstreams may omit
(``message.refusal``, null when the model did not refuse).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import orjson

from services.core.answers import etag_of

_VOLATILE = ("id", "created")


def conform_completion(response: Mapping[str, Any]) -> dict[str, Any]:
    """A copy with what the schema requires of every choice present: ``logprobs`` and
    ``message.refusal`` (null when the upstream left them out)."""
    out = dict(response)
    choices = response.get("choices")
    if isinstance(choices, list):
        fixed = []
        for choice in choices:
            if isinstance(choice, Mapping):
                choice = {"logprobs": None, **choice}
                message = choice.get("message")
                if isinstance(message, Mapping) and "refusal" not in message:
                    choice["message"] = {**message, "refusal": None}
            fixed.append(choice)
        out["choices"] = fixed
    return out


def stable_bytes(response: Mapping[str, Any]) -> bytes:
    """The completion without ``id`` and ``created``, as stored."""
    return orjson.dumps({k: v for k, v in response.items() if k not in _VOLATILE})


def stable_etag(response: Mapping[str, Any]) -> str:
    return etag_of(stable_bytes(response))


def completion_id() -> str:
    return f"chatcmpl-{secrets.token_hex(_ID_BYTES)}"


_ID_BYTES = 12


class CompletionIds:
    """Fresh completion ids, as random as :func:`completion_id`'s, from random bytes
    drawn ``batch`` ids at a time: one ``getrandom`` system call per hit was a
    measurable part of a lone client's hit."""

    __slots__ = ("_batch", "_pool", "_used")

    def __init__(self, batch: int = 256) -> None:
        self._batch = batch
        self._pool = b""
        self._used = 0

    def next(self) -> str:
        if self._used >= len(self._pool):
            self._pool = secrets.token_bytes(_ID_BYTES * self._batch)
            self._used = 0
        start = self._used
        self._used = start + _ID_BYTES
        return "chatcmpl-" + self._pool[start : start + _ID_BYTES].hex()


def identified(stable: bytes, created: int, response_id: str | None = None) -> bytes:
    """A stored stable part as a response of its own: a fresh ``id`` (``response_id``,
    else a new one) and ``created``."""
    fresh = response_id or completion_id()
    head = b'{"id":"' + fresh.encode() + b'","created":' + str(created).encode()
    rest = stable[1:]
    return head + (rest if rest.startswith(b"}") else b"," + rest)


def with_fresh_identity(response: Mapping[str, Any], created: int) -> dict[str, Any]:
    return {**response, "id": completion_id(), "created": created}
