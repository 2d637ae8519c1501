"""Which replica caches which KV block, learnt from the replicas' KV events (pure).

The router keeps one index over all replicas, fed by their ``BlockStored`` /
``BlockRemoved`` / ``AllBlocksCleared`` events (llm-d's KV-cache indexer keeps the same
map, block key -> pods). Hashes are vLLM's external 64-bit form
(``services.core.kv_events.external_block_hash``). What the index cannot know for sure
(a replica restarted, events were lost to a sequence gap or a dropped subscription) it
forgets: :meth:`KvBlockIndex.forget_replica` drops everything a replica was said to hold,
so the router never sends a prefix to a replica on the strength of blocks it no longer has.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

from services.core.kv_events import AllBlocksCleared, BlockRemoved, BlockStored, KVCacheEvent


class KvBlockIndex:
    """block hash -> replicas holding it, and replica -> its blocks (for forgetting)."""

    def __init__(self) -> None:
        self._holders: dict[int, set[str]] = {}
        self._blocks: dict[str, set[int]] = {}

    def apply(self, replica: str, events: Iterable[KVCacheEvent]) -> None:
        for event in events:
            if isinstance(event, BlockStored):
                self.stored(replica, event.block_hashes)
            elif isinstance(event, BlockRemoved):
                self.removed(replica, event.block_hashes)
            elif isinstance(event, AllBlocksCleared):
                self.forget_replica(replica)

    def stored(self, replica: str, hashes: Iterable[int]) -> None:
        blocks = self._blocks.setdefault(replica, set())
        for block_hash in hashes:
            self._holders.setdefault(block_hash, set()).add(replica)
            blocks.add(block_hash)

    def removed(self, replica: str, hashes: Iterable[int]) -> None:
        blocks = self._blocks.get(replica)
        if blocks is None:
            return
        for block_hash in hashes:
            blocks.discard(block_hash)
            holders = self._holders.get(block_hash)
            if holders is not None:
                holders.discard(replica)
                if not holders:
                    del self._holders[block_hash]

    def forget_replica(self, replica: str) -> int:
        """Drop every entry of ``replica``; returns how many blocks it was said to hold."""
        blocks = self._blocks.pop(replica, set())
        self.removed_all(replica, blocks)
        return len(blocks)

    def removed_all(self, replica: str, hashes: Iterable[int]) -> None:
        for block_hash in hashes:
            holders = self._holders.get(block_hash)
            if holders is not None:
                holders.discard(replica)
                if not holders:
                    del self._holders[block_hash]

    def blocks_of(self, replica: str) -> int:
        return len(self._blocks.get(replica, ()))

    def prefix_matches(self, hashes: Sequence[int], replicas: Iterable[str]) -> dict[str, int]:
        """For each of ``replicas``: how many leading blocks of ``hashes`` it holds."""
        matched = dict.fromkeys(replicas, 0)
        active = set(matched)
        for depth, block_hash in enumerate(hashes):
            holders = self._holders.get(block_hash)
            if not holders:
                break
            active &= holders
            if not active:
                break
            for replica in active:
                matched[replica] = depth + 1
        return matched


class SequenceVerdict(StrEnum):
    #: The first message seen from this publisher (since start or a reconnect).
    FIRST = "first"
    IN_ORDER = "in_order"
    #: Messages were missed: what the replica stored or evicted meanwhile is unknown.
    GAP = "gap"
    #: The sequence started over: the replica restarted with an empty cache.
    RESTART = "restart"

    @property
    def forget(self) -> bool:
        """Whether the replica's index entries can no longer be trusted."""
        return self in (SequenceVerdict.GAP, SequenceVerdict.RESTART)


class EventSequences:
    """Per replica, the last sequence number seen on its KV-event stream (vLLM counts
    0, 1, 2, ... per publisher process)."""

    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def observe(self, replica: str, sequence: int) -> SequenceVerdict:
        last = self._last.get(replica)
        self._last[replica] = sequence
        if last is None:
            return SequenceVerdict.FIRST
        if sequence == last + 1:
            return SequenceVerdict.IN_ORDER
        return SequenceVerdict.GAP if sequence > last else SequenceVerdict.RESTART

    def lost(self, replica: str) -> None:
        """The subscription dropped: the next message starts a new stream."""
        self._last.pop(replica, None)
