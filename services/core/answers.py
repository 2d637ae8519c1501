"""The cached-answer body, and the OpenAI wire forms it is served in (pure).

A body is one line of metadata JSON, a newline, then the OpenAI ``chat.completion``
response as it is sent to clients except for ``id`` and ``created``, which every
serving gets fresh (``services.core.response_identity``; a hit splices bytes, it does
not re-encode):

``{"f":1,"layer":"sem","created_at":...,"cid":...,"tags":[...],...}\\n{"object":...}``

The metadata records what the answer was built from: the products' ``spec_versions``,
the tags and the generation snapshot (so a semantic hit can be promoted into the request
layer through the same guarded fill), the fingerprint class id, and, for an answer
that was streamed, its chunks' contents (replayed chunk for chunk on a streaming hit).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import orjson

from services.core.errors import CachecohError

#: 2: the response is stored without ``id``/``created``; ``origin`` names its upstream call.
ANSWER_FORMAT = 2


class AnswerFormatError(CachecohError, ValueError):
    """A stored body that this version cannot read (treated as a miss)."""


class NotCacheable(CachecohError, ValueError):
    """An upstream answer the cache cannot hold faithfully; ``reason`` is a metric label."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True, slots=True)
class AnswerMeta:
    layer: str
    created_at: float
    product: str
    cid: str
    tags: tuple[str, ...]
    generations: tuple[tuple[str, str], ...]
    spec_versions: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    etag: str = ""
    chunks: tuple[str, ...] = ()
    #: The upstream usage when the answer was generated: what a hit saves (CSR).
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: The ``id`` of the upstream completion the answer came from (``X-Cache-Origin``):
    #: every serving has its own ``id``, this says which generation it replays.
    origin: str = ""

    @property
    def surrogate_key(self) -> str:
        return " ".join(self.tags)


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    meta: AnswerMeta
    response: bytes

    def age(self, now: float) -> int:
        return age_seconds(self.meta.created_at, now)


def etag_of(response: bytes) -> str:
    return '"' + hashlib.blake2b(response, digest_size=16).hexdigest() + '"'


def age_seconds(created_at: float, now: float) -> int:
    """HTTP ``Age``: whole seconds since the answer was produced, never negative."""
    return max(0, math.floor(now - created_at))


def encode_answer(meta: AnswerMeta, response: bytes) -> bytes:
    header = orjson.dumps(
        {
            "f": ANSWER_FORMAT,
            "layer": meta.layer,
            "created_at": meta.created_at,
            "product": meta.product,
            "cid": meta.cid,
            "tags": list(meta.tags),
            "generations": [list(pair) for pair in meta.generations],
            "spec_versions": dict(meta.spec_versions),
            "etag": meta.etag or etag_of(response),
            "chunks": list(meta.chunks),
            "usage": [meta.prompt_tokens, meta.completion_tokens],
            "origin": meta.origin,
        }
    )
    return header + b"\n" + response


def decode_answer(body: bytes) -> CachedAnswer:
    header, sep, response = body.partition(b"\n")
    if not sep:
        raise AnswerFormatError("no metadata line")
    try:
        raw = orjson.loads(header)
    except orjson.JSONDecodeError as exc:
        raise AnswerFormatError("metadata is not JSON") from exc
    if not isinstance(raw, dict) or raw.get("f") != ANSWER_FORMAT:
        raise AnswerFormatError(
            f"unknown answer format {raw.get('f') if isinstance(raw, dict) else None!r}"
        )
    try:
        meta = AnswerMeta(
            layer=str(raw["layer"]),
            created_at=float(raw["created_at"]),
            product=str(raw["product"]),
            cid=str(raw["cid"]),
            tags=tuple(str(t) for t in raw["tags"]),
            generations=tuple((str(f), str(g)) for f, g in raw["generations"]),
            spec_versions=MappingProxyType(
                {str(k): int(v) for k, v in raw["spec_versions"].items()}
            ),
            etag=str(raw["etag"]),
            chunks=tuple(str(c) for c in raw.get("chunks", ())),
            prompt_tokens=int(raw.get("usage", (0, 0))[0]),
            completion_tokens=int(raw.get("usage", (0, 0))[1]),
            origin=str(raw.get("origin", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise AnswerFormatError(f"metadata field missing or mistyped: {exc}") from exc
    return CachedAnswer(meta, response)


def answer_texts(response: Mapping[str, Any]) -> list[str]:
    """Every text of an answer a person could read (content and tool-call arguments)."""
    texts: list[str] = []
    for choice in response.get("choices") or ():
        message = choice.get("message") or {}
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            texts.append(str(function.get("name", "")))
            texts.append(str(function.get("arguments", "")))
    return texts


def check_cacheable(response: Mapping[str, Any]) -> None:
    """Raise :class:`NotCacheable` for an answer that should not be kept."""
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise NotCacheable("no_choices")
    if any(c.get("finish_reason") not in ("stop", "length", "tool_calls") for c in choices):
        raise NotCacheable("unfinished")


# -- streaming --------------------------------------------------------------------------


class StreamAssembly:
    """Rebuilds a ``chat.completion`` from ``chat.completion.chunk`` events.

    Only the shapes a cache can replay faithfully are accepted: one choice, text deltas.
    Anything else (tool-call deltas, several choices) makes :meth:`completion` raise
    :class:`NotCacheable`, and the stream is relayed but not stored.
    """

    __slots__ = ("_chunks", "_finish", "_first", "_role", "_unsupported", "_usage")

    def __init__(self) -> None:
        self._first: dict[str, Any] | None = None
        self._role = "assistant"
        self._chunks: list[str] = []
        self._finish: str | None = None
        self._usage: Any = None
        self._unsupported: str | None = None

    def add(self, chunk: Mapping[str, Any]) -> None:
        if self._first is None:
            self._first = {k: chunk.get(k) for k in ("id", "created", "model")}
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                self._unsupported = "several_choices"
                continue
            delta = choice.get("delta") or {}
            if delta.get("tool_calls") or delta.get("function_call"):
                self._unsupported = "tool_call_stream"
            if isinstance(delta.get("role"), str):
                self._role = delta["role"]
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._chunks.append(content)
            if choice.get("finish_reason") is not None:
                self._finish = str(choice["finish_reason"])

    @property
    def chunks(self) -> tuple[str, ...]:
        return tuple(self._chunks)

    @property
    def usage(self) -> Any:
        """The stream's ``usage`` chunk, if the upstream sent one."""
        return self._usage

    def completion(self) -> dict[str, Any]:
        if self._unsupported is not None:
            raise NotCacheable(self._unsupported)
        if self._first is None or self._finish is None:
            raise NotCacheable("unfinished")
        response: dict[str, Any] = {
            "id": self._first["id"],
            "object": "chat.completion",
            "created": self._first["created"],
            "model": self._first["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": self._role, "content": "".join(self._chunks)},
                    "logprobs": None,
                    "finish_reason": self._finish,
                }
            ],
        }
        if self._usage is not None:
            response["usage"] = self._usage
        return response


def sse_event(payload: Mapping[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(payload) + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True)
class StreamReplay:
    """A cached completion as SSE chunks (role, the content chunks, finish, usage) with
    the identity left out: each serving splices its own ``id`` and ``created`` in front,
    as ``response_identity.identified`` does for a body. Built once per stored answer;
    a replay is then byte concatenation only."""

    #: Each chunk's JSON without ``id``/``created`` (``{"object":…}``).
    chunks: tuple[bytes, ...]
    usage: bytes | None

    @classmethod
    def of(cls, response: Mapping[str, Any], chunks: Iterable[str]) -> StreamReplay:
        choice = (response.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        pieces = list(chunks) or [str(message.get("content") or "")]
        base = {"object": "chat.completion.chunk", "model": response.get("model")}

        def chunk(delta: Mapping[str, Any], finish: str | None) -> bytes:
            choices = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
            return orjson.dumps({**base, "choices": choices})

        out = [chunk({"role": message.get("role", "assistant"), "content": ""}, None)]
        out.extend(chunk({"content": piece}, None) for piece in pieces if piece)
        calls = message.get("tool_calls") or ()
        if calls:
            out.append(
                chunk({"tool_calls": [{"index": i, **call} for i, call in enumerate(calls)]}, None)
            )
        out.append(chunk({}, str(choice.get("finish_reason") or "stop")))
        usage = response.get("usage")
        return cls(
            tuple(out),
            orjson.dumps({**base, "choices": [], "usage": usage}) if usage is not None else None,
        )

    def events(self, completion_id: str, created: int, *, include_usage: bool) -> list[bytes]:
        """The SSE events of one serving, ``[DONE]`` last."""
        head = b'data: {"id":"' + completion_id.encode() + b'","created":' + str(created).encode()
        head += b","
        events = [head + c[1:] + b"\n\n" for c in self.chunks]
        if include_usage and self.usage is not None:
            events.append(head + self.usage[1:] + b"\n\n")
        events.append(SSE_DONE)
        return events
