"""An accounting model of vLLM's automatic prefix cache (pure, no I/O).

vLLM (v1) splits a prompt's tokens into blocks of ``block_size`` (16) tokens. Each *full*
block is identified by a hash chained over its parent's hash, its token ids and, for the
first block only, extra keys such as the request's ``cache_salt``. So a block can be
reused only when the whole prefix before it, and the salt, are equal: tenants with
different salts never share a block. A request reuses the longest run of leading blocks
already in the cache; the last prompt token is always recomputed (its logits are needed),
so a fully cached prompt still computes one token. Blocks no running request references
stay cached and are evicted least-recently-used when the block budget runs out.

This model reproduces that bookkeeping (not vLLM's hash bytes: vLLM hashes a CBOR
encoding with ``sha256_cbor``; here the same fields are packed with ``struct``), so the
offline engine reports the same hit/miss counts a vLLM replica with the same block budget
would.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import struct
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from services.core.errors import CachecohError

BLOCK_SIZE = 16

#: Parent hash of a sequence's first block.
ROOT_BLOCK_HASH = hashlib.sha256(b"cachecoh/prefix-cache/root").digest()


class PrefixCacheError(CachecohError):
    """Base class for prefix-cache accounting errors."""


class UnknownAdmissionError(PrefixCacheError):
    def __init__(self, admission_id: int) -> None:
        self.admission_id = admission_id
        super().__init__(f"admission {admission_id} is not running (released twice?)")


def block_hashes(
    token_ids: Sequence[int], *, salt: str | None = None, block_size: int = BLOCK_SIZE
) -> tuple[bytes, ...]:
    """Chained hashes of the full blocks of ``token_ids`` (a partial tail has none)."""
    if block_size <= 0:
        raise ValueError(f"block_size must be positive, got {block_size}")
    salt_bytes = salt.encode("utf-8") if salt else b""
    hashes: list[bytes] = []
    parent = ROOT_BLOCK_HASH
    full_blocks = len(token_ids) // block_size
    for index in range(full_blocks):
        block = token_ids[index * block_size : (index + 1) * block_size]
        digest = hashlib.sha256(parent)
        digest.update(struct.pack(f"<{block_size}I", *block))
        # Length-prefixed so that salt bytes can never be confused with token bytes.
        extra = salt_bytes if index == 0 else b""
        digest.update(struct.pack("<I", len(extra)))
        digest.update(extra)
        parent = digest.digest()
        hashes.append(parent)
    return tuple(hashes)


def blocks_for_tokens(num_tokens: int, block_size: int = BLOCK_SIZE) -> int:
    return math.ceil(num_tokens / block_size) if num_tokens > 0 else 0


@dataclass(frozen=True, slots=True)
class Admission:
    """A running request's hold on the cache; give it back with ``release``."""

    admission_id: int
    #: Prompt tokens looked up (vLLM's ``prefix_cache_queries`` increment).
    query_tokens: int
    #: Prompt tokens served from cached blocks (``prefix_cache_hits`` increment).
    hit_tokens: int
    #: Full-block hashes this request references while it runs.
    pinned: tuple[bytes, ...]
    #: Blocks without a hash: the partial prompt tail and the generated tokens.
    private_blocks: int


@dataclass(frozen=True, slots=True)
class CacheStats:
    capacity_blocks: int
    cached_blocks: int
    blocks_in_use: int
    running_requests: int
    evicted_blocks: int = 0

    @property
    def usage(self) -> float:
        """vLLM's ``kv_cache_usage_perc``: referenced blocks / all blocks (0..1)."""
        if self.capacity_blocks == 0:
            return 0.0
        return min(1.0, self.blocks_in_use / self.capacity_blocks)


class PrefixCacheModel:
    """Block-budget LRU over chained block hashes, with reference counts for running
    requests (a referenced block is never evicted, as in vLLM's block pool).

    Not thread-safe: the engine calls it from its event loop only.
    """

    def __init__(self, capacity_blocks: int, *, block_size: int = BLOCK_SIZE) -> None:
        if capacity_blocks <= 0:
            raise ValueError(f"capacity_blocks must be positive, got {capacity_blocks}")
        self.capacity_blocks = capacity_blocks
        self.block_size = block_size
        # Hash -> reference count, in least- to most-recently-used order.
        self._cached: OrderedDict[bytes, int] = OrderedDict()
        self._private_blocks = 0
        self._evicted_blocks = 0
        self._pinned_blocks = 0
        self._running: dict[int, Admission] = {}
        self._ids = itertools.count(1)

    def lookup(self, hashes: Sequence[bytes], num_prompt_tokens: int) -> int:
        """Prompt tokens a request with these block hashes would get from the cache."""
        # The last prompt token is always computed, so at most this many blocks hit.
        max_hit_blocks = max(0, num_prompt_tokens - 1) // self.block_size
        hit_blocks = 0
        for block_hash in hashes[:max_hit_blocks]:
            if block_hash not in self._cached:
                break
            hit_blocks += 1
        return hit_blocks * self.block_size

    def admit(
        self, hashes: Sequence[bytes], num_prompt_tokens: int, *, reserve_tokens: int = 0
    ) -> Admission:
        """Start a request: count its hits, pin its blocks, cache its new full blocks.

        ``reserve_tokens`` are the tokens it will generate (private blocks until freed).
        """
        hit_tokens = self.lookup(hashes, num_prompt_tokens)
        for block_hash in hashes:
            refs = self._cached.get(block_hash, 0)
            if refs == 0:
                self._pinned_blocks += 1
            self._cached[block_hash] = refs + 1
            self._cached.move_to_end(block_hash)
        hashed_tokens = len(hashes) * self.block_size
        private = blocks_for_tokens(num_prompt_tokens - hashed_tokens + reserve_tokens)
        self._private_blocks += private
        admission = Admission(
            admission_id=next(self._ids),
            query_tokens=num_prompt_tokens,
            hit_tokens=hit_tokens,
            pinned=tuple(hashes),
            private_blocks=private,
        )
        self._running[admission.admission_id] = admission
        self._evict()
        return admission

    def release(self, admission: Admission) -> None:
        """Finish a request: its blocks stay cached but become evictable."""
        if self._running.pop(admission.admission_id, None) is None:
            raise UnknownAdmissionError(admission.admission_id)
        for block_hash in admission.pinned:
            self._cached[block_hash] -= 1
            if self._cached[block_hash] == 0:
                self._pinned_blocks -= 1
        self._private_blocks -= admission.private_blocks
        self._evict()

    def reset(self) -> int:
        """Drop every unreferenced cached block (vLLM's ``/reset_prefix_cache``)."""
        idle = [block_hash for block_hash, refs in self._cached.items() if refs == 0]
        for block_hash in idle:
            del self._cached[block_hash]
        return len(idle)

    def stats(self) -> CacheStats:
        return CacheStats(
            capacity_blocks=self.capacity_blocks,
            cached_blocks=len(self._cached),
            blocks_in_use=self._pinned_blocks + self._private_blocks,
            running_requests=len(self._running),
            evicted_blocks=self._evicted_blocks,
        )

    def _evict(self) -> None:
        """Evict unreferenced blocks, oldest first, until the budget holds (or only
        referenced blocks are left: vLLM would then queue requests, the model overcommits)."""
        excess = len(self._cached) + self._private_blocks - self.capacity_blocks
        if excess <= 0:
            return
        victims: list[bytes] = []
        for block_hash, refs in self._cached.items():
            if len(victims) == excess:
                break
            if refs == 0:
                victims.append(block_hash)
        for block_hash in victims:
            del self._cached[block_hash]
        self._evicted_blocks += len(victims)
