"""Retry with capped exponential backoff for transient dependency errors.

A coherence worker must not skip an event because Redis or the database blinked, so
these retries never give up; they are counted and logged, and the partition waits.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from services.core.errors import TransientError

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Backoff:
    initial_s: float = 0.05
    max_s: float = 5.0

    def delay(self, attempt: int) -> float:
        base = min(self.max_s, self.initial_s * (2 ** min(attempt, 20)))
        return float(base * (0.5 + random.random() / 2))  # noqa: S311 - jitter, not crypto


async def retry_forever(
    what: str,
    op: Callable[[], Awaitable[T]],
    backoff: Backoff,
    on_retry: Callable[[TransientError], None] = lambda _exc: None,
    *,
    first_error: TransientError | None = None,
) -> T:
    """``op`` until it succeeds; ``first_error``: the caller's own first try failed so."""
    attempt = 0
    failed = first_error
    while True:
        if failed is None:
            try:
                return await op()
            except TransientError as exc:
                failed = exc
        on_retry(failed)
        delay = backoff.delay(attempt)
        if attempt == 0 or attempt % 20 == 0:
            log.warning("%s failed (%s); retrying in %.2fs", what, failed, delay)
        attempt += 1
        failed = None
        await asyncio.sleep(delay)
