"""Errors the gateway's routes translate into OpenAI-style error bodies (``app._translate``)."""

from __future__ import annotations

from services.core.errors import CachecohError


class Unauthorized(CachecohError):
    def __init__(self, message: str = "invalid or missing API key") -> None:
        self.message = message
        super().__init__(message)


class RateLimited(CachecohError):
    """The key's token bucket is empty: the miss path may not call upstream yet."""

    def __init__(self, retry_after_s: int, what: str = "for this question") -> None:
        self.retry_after_s = retry_after_s
        super().__init__(f"too many upstream calls {what}; retry in {retry_after_s} s")


class BreakerOpen(CachecohError):
    """The key missed too often this minute: answered with the fallback, not upstream."""

    def __init__(self, retry_after_s: int, message: str) -> None:
        self.retry_after_s = retry_after_s
        self.message = message
        super().__init__(message)


class UnknownCacheKey(CachecohError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__("cache key must be '<req|sem>:<product>:<digest>'")


class BodyTooLarge(CachecohError):
    """The request body is longer than ``max_body_bytes`` (413; the rest is never read)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"request body exceeds {limit} bytes")
