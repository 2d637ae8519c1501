"""A bounded in-process memo of pure per-text results (redaction, fingerprints).

Keys are a keyed BLAKE2b digest of the text, so the memo never holds a request's text:
only what was derived from it (a redaction has placeholders, not values).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

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
