"""A self-healing bound on the consumer's long-poll wait.

A short fetch wait keeps invalidation lag low on brokers that do not end a long poll
early when data arrives. But a broker that needs longer than the wait to find the data
(Tansu, once a partition holds thousands of record batches) then answers every fetch
empty, and the partition starves without an error. So: when a partition has records
beyond what was fetched and fetching made no progress for a tick, double the wait (up
to a cap); after a quiet period, halve it back towards the configured floor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class FetchWaitGovernor:
    floor_ms: int
    cap_ms: int = 1000
    relax_after_s: float = 30.0
    current_ms: int = field(init=False)
    _last_fetched: dict[int, int] = field(default_factory=dict, init=False)
    _calm_since: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.current_ms = self.floor_ms

    def observe(
        self, high_watermarks: Mapping[int, int], fetched: Mapping[int, int], now: float
    ) -> int | None:
        """One tick: per partition, the high-water mark and the offset last fetched (−1:
        none). Returns the new wait when it changes, else None."""
        starved = False
        for partition, high in high_watermarks.items():
            position = fetched.get(partition, -1)
            behind = high - 1 > position
            if behind and self._last_fetched.get(partition) == position:
                starved = True
            self._last_fetched[partition] = position
        if starved:
            self._calm_since = None
            raised = min(self.cap_ms, max(4, self.current_ms * 2))
            return self._set(raised)
        if self.current_ms > self.floor_ms:
            if self._calm_since is None:
                self._calm_since = now
            elif now - self._calm_since >= self.relax_after_s:
                self._calm_since = now
                return self._set(max(self.floor_ms, self.current_ms // 2))
        return None

    def _set(self, value: int) -> int | None:
        if value == self.current_ms:
            return None
        self.current_ms = value
        return value
