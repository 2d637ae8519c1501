"""Bounded in-process memos: pure per-text results (redaction, fingerprints), and the
formatting of cache hits.

``DigestMemo`` keys are a keyed BLAKE2b digest of the text, so the memo never holds a
request's text: only what was derived from it (a redaction has placeholders, not values).
``HitMemo`` holds stored answers as Redis returned them (no personal data is ever
stored), never decides whether one is served.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from services.core.answers import CachedAnswer, StreamReplay

T = TypeVar("T")


class DigestMemo(Generic[T]):
    __slots__ = ("_entries", "_key", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._key = secrets.token_bytes(16)
        self._entries: OrderedDict[bytes, T] = OrderedDict()

    def get(self, text: str, compute: Callable[[str], T]) -> T:
        if self._size <= 0:
            return compute(text)
        digest = hashlib.blake2b(text.encode(), key=self._key, digest_size=16).digest()
        found = self._entries.get(digest)
        if found is not None:
            self._entries.move_to_end(digest)
            return found
        value = compute(text)
        self._entries[digest] = value
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value


@dataclass(frozen=True, slots=True)
class PreparedHit:
    """What serving one stored answer needs that is the same for every serving: the
    decoded entry, its headers, its stream replay. Formatting only: whether the entry may
    be served was decided by the Redis lookup that just returned these bytes."""

    entry: bytes
    answer: CachedAnswer
    headers: Mapping[str, str]
    replay: StreamReplay


class HitMemo:
    """Prepared hits per entry key (``<layer>:<digest>``), reused only while Redis returns
    the very same entry bytes (a refill or a new generation is prepared afresh)."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[str, PreparedHit] = OrderedDict()

    def get(self, key: str, entry: bytes, prepare: Callable[[bytes], PreparedHit]) -> PreparedHit:
        found = self._entries.get(key)
        if found is not None and found.entry == entry:
            self._entries.move_to_end(key)
            return found
        prepared = prepare(entry)
        if self._size > 0:
            self._entries[key] = prepared
            self._entries.move_to_end(key)
            if len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return prepared


@dataclass(frozen=True, slots=True)
class KnownRequest:
    """What keying a request body produced, kept so the same bytes are not parsed,
    validated, redacted and keyed again: the request digest and what a hit reply needs.
    Only requests that were admitted to the request layer are recorded. No text: the
    model name and flags only (finding kinds, never values)."""

    digest: str
    model: str
    stream: bool
    include_usage: bool
    findings: tuple[str, ...]
    #: (product, semantic digest) once the full path derived them.
    semantic: tuple[str, str] | None = None


class KnownRequests:
    """Request bodies already keyed, by a keyed BLAKE2b of (tenant, namespace, language,
    body bytes): byte-identical requests in one key space derive the same request
    digest, so the second one goes straight to the request-layer lookup (which still
    decides, in Redis, whether anything is served)."""

    __slots__ = ("_entries", "_key", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._key = secrets.token_bytes(16)
        self._entries: OrderedDict[bytes, KnownRequest] = OrderedDict()

    def fingerprint(self, tenant: str, namespace: str, language: str | None, raw: bytes) -> bytes:
        h = hashlib.blake2b(key=self._key, digest_size=16)
        for part in (tenant, namespace, language or ""):
            encoded = part.encode()
            h.update(len(encoded).to_bytes(4, "big"))
            h.update(encoded)
        h.update(raw)
        return h.digest()

    def get(self, fingerprint: bytes) -> KnownRequest | None:
        found = self._entries.get(fingerprint)
        if found is not None:
            self._entries.move_to_end(fingerprint)
        return found

    def put(self, fingerprint: bytes, known: KnownRequest) -> None:
        if self._size <= 0:
            return
        self._entries[fingerprint] = known
        self._entries.move_to_end(fingerprint)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
