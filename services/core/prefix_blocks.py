"""An accounting model of vLLM's automatic prefix cache, with vLLM's block hashes (pure).

vLLM (v1) splits a request's tokens into blocks of ``block_size`` (16) tokens. Each *full*
block is identified by a hash chained over its parent's hash, its token ids and extra
keys: with ``--prefix-caching-hash-algo sha256_cbor`` (vLLM >= 0.10.2) that is
``sha256(cbor(canonical)(parent, token_ids, extra_keys))``, where the first block's parent
is ``NONE_HASH = sha256_cbor(PYTHONHASHSEED)`` and the first block's extra keys are
``(cache_salt,)`` (``None`` for every other block of an unsalted, non-LoRA, text-only
request). :func:`block_hashes` computes exactly that, so the router, the offline engine
and a vLLM replica with the same seed name the same block the same way.

A request reuses the longest run of leading blocks already cached; the last prompt token
is always recomputed (its logits are needed), so a fully cached prompt still computes one
token. Blocks filled by generated tokens are cached too. Blocks no running request
references stay cached and are evicted least-recently-freed first; a finished request
frees its blocks tail first, so its tail is evicted before its head (vLLM's free-queue
order), which keeps shared heads cached longest. The model records the KV cache events a
vLLM replica would publish for the same changes (``services.core.kv_events``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cbor2

from services.core.errors import CachecohError
from services.core.kv_events import (
    AllBlocksCleared,
    BlockRemoved,
    BlockStored,
    KVCacheEvent,
    external_block_hash,
)

BLOCK_SIZE = 16
#: vLLM replicas in compose run with PYTHONHASHSEED=0 (docs/inference.md).
DEFAULT_HASH_SEED = "0"


class PrefixCacheError(CachecohError):
    """Base class for prefix-cache accounting errors."""


class UnknownAdmissionError(PrefixCacheError):
    def __init__(self, admission_id: int) -> None:
        self.admission_id = admission_id
        super().__init__(f"admission {admission_id} is not running (released twice?)")


def sha256_cbor(value: Any) -> bytes:
    """vLLM's ``sha256_cbor``: SHA-256 of the canonical CBOR encoding."""
    return hashlib.sha256(cbor2.dumps(value, canonical=True)).digest()


@functools.lru_cache(maxsize=8)
def none_hash(hash_seed: str) -> bytes:
    """vLLM's ``NONE_HASH`` (the first block's parent) for a ``PYTHONHASHSEED`` value."""
    return sha256_cbor(hash_seed)


def block_hashes(
    token_ids: Sequence[int],
    *,
    salt: str | None = None,
    block_size: int = BLOCK_SIZE,
    hash_seed: str = DEFAULT_HASH_SEED,
) -> tuple[bytes, ...]:
    """Chained vLLM block hashes of the full blocks of ``token_ids`` (a partial tail has
    none)."""
    if block_size <= 0:
        raise ValueError(f"block_size must be positive, got {block_size}")
    hashes: list[bytes] = []
    parent = none_hash(hash_seed)
    for index in range(len(token_ids) // block_size):
        block = tuple(token_ids[index * block_size : (index + 1) * block_size])
        extra_keys = (salt,) if index == 0 and salt else None
        parent = sha256_cbor((parent, block, extra_keys))
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
        # Hash -> reference count; unreferenced blocks in eviction order (first = next).
        self._cached: OrderedDict[bytes, int] = OrderedDict()
        self._private_blocks = 0
        self._evicted_blocks = 0
        self._pinned_blocks = 0
        self._running: dict[int, Admission] = {}
        self._ids = itertools.count(1)
        self._events: list[KVCacheEvent] = []

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
        self,
        hashes: Sequence[bytes],
        num_prompt_tokens: int,
        *,
        reserve_tokens: int = 0,
        token_ids: Sequence[int] = (),
    ) -> Admission:
        """Start a request: count its hits, pin its blocks, cache its new full blocks.

        ``reserve_tokens`` are the tokens it will generate (private blocks until they fill);
        ``token_ids`` (the prompt's) go into the ``BlockStored`` events.
        """
        hit_tokens = self.lookup(hashes, num_prompt_tokens)
        self._store(hashes, token_ids, parent=None, pin=True)
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

    def release(
        self,
        admission: Admission,
        *,
        generated_hashes: Sequence[bytes] = (),
        generated_token_ids: Sequence[int] = (),
    ) -> None:
        """Finish a request: its blocks stay cached but become evictable, tail first.

        ``generated_hashes`` are the chained hashes of the full blocks after the prompt's
        (filled by generated tokens): they are cached as well, as vLLM does.
        """
        if self._running.pop(admission.admission_id, None) is None:
            raise UnknownAdmissionError(admission.admission_id)
        self._private_blocks -= admission.private_blocks
        parent = admission.pinned[-1] if admission.pinned else None
        # Freed in reverse: the chain's tail becomes the next eviction candidate.
        self._store(generated_hashes, generated_token_ids, parent=parent, pin=False)
        for block_hash in reversed(generated_hashes):
            if self._cached.get(block_hash) == 0:
                self._cached.move_to_end(block_hash)
        for block_hash in reversed(admission.pinned):
            self._cached[block_hash] -= 1
            if self._cached[block_hash] == 0:
                self._pinned_blocks -= 1
                self._cached.move_to_end(block_hash)
        self._evict()

    def reset(self) -> int:
        """vLLM's ``/reset_prefix_cache``: drop every unreferenced cached block."""
        idle = [block_hash for block_hash, refs in self._cached.items() if refs == 0]
        for block_hash in idle:
            del self._cached[block_hash]
        if not self._cached:
            self._events.append(AllBlocksCleared())
        elif idle:
            self._events.append(BlockRemoved(tuple(external_block_hash(h) for h in idle)))
        return len(idle)

    def drain_events(self) -> list[KVCacheEvent]:
        """The KV cache events recorded since the last call, oldest first."""
        events, self._events = self._events, []
        return events

    def stats(self) -> CacheStats:
        return CacheStats(
            capacity_blocks=self.capacity_blocks,
            cached_blocks=len(self._cached),
            blocks_in_use=self._pinned_blocks + self._private_blocks,
            running_requests=len(self._running),
            evicted_blocks=self._evicted_blocks,
        )

    def _store(
        self,
        hashes: Sequence[bytes],
        token_ids: Sequence[int],
        *,
        parent: bytes | None,
        pin: bool,
    ) -> None:
        """Insert (or touch) blocks; one ``BlockStored`` per run of newly cached blocks."""
        run: list[int] = []
        run_start = 0
        run_parent: bytes | None = None
        previous = parent
        for index, block_hash in enumerate(hashes):
            refs = self._cached.get(block_hash)
            if refs is None:
                if not run:
                    run_start = index
                    run_parent = previous
                run.append(index)
                refs = 0
            elif run:
                self._emit_stored(hashes, token_ids, run_start, len(run), run_parent)
                run = []
            if pin:
                if refs == 0:
                    self._pinned_blocks += 1
                refs += 1
            self._cached[block_hash] = refs
            self._cached.move_to_end(block_hash)
            previous = block_hash
        if run:
            self._emit_stored(hashes, token_ids, run_start, len(run), run_parent)

    def _emit_stored(
        self,
        hashes: Sequence[bytes],
        token_ids: Sequence[int],
        start: int,
        count: int,
        parent: bytes | None,
    ) -> None:
        size = self.block_size
        self._events.append(
            BlockStored(
                block_hashes=tuple(external_block_hash(h) for h in hashes[start : start + count]),
                parent_block_hash=None if parent is None else external_block_hash(parent),
                token_ids=tuple(token_ids[start * size : (start + count) * size]),
                block_size=size,
            )
        )

    def _evict(self) -> None:
        """Evict unreferenced blocks in free order until the budget holds (or only
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
        if victims:
            self._events.append(BlockRemoved(tuple(external_block_hash(h) for h in victims)))
