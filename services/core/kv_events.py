"""vLLM's KV cache events as plain values (pure, no I/O).

A vLLM replica started with ``--kv-events-config`` publishes, per scheduler step, a
``KVEventBatch`` of these events: ``BlockStored`` when full blocks enter its prefix cache,
``BlockRemoved`` when they are evicted, ``AllBlocksCleared`` when the cache is reset.
Block hashes are vLLM's *external* form: by default (``VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1``)
the low 64 bits of the 32-byte block hash as an unsigned int, or the raw bytes when that
variable is 0. :func:`external_block_hash` maps both to the int form, so every consumer
compares ints. The wire codec is ``services.inference.kv_event_wire``.
"""

from __future__ import annotations

from dataclasses import dataclass

_LOW_64_BITS = (1 << 64) - 1
MEDIUM_GPU = "GPU"


def external_block_hash(block_hash: bytes | int) -> int:
    """vLLM's ``maybe_convert_block_hash``: the low 64 bits, big-endian, unsigned."""
    if isinstance(block_hash, int):
        return block_hash & _LOW_64_BITS
    return int.from_bytes(block_hash, "big") & _LOW_64_BITS


@dataclass(frozen=True, slots=True)
class BlockStored:
    block_hashes: tuple[int, ...]
    #: The hash of the block before the first stored one (``None``: they start the chain).
    parent_block_hash: int | None
    token_ids: tuple[int, ...]
    block_size: int
    lora_id: int | None = None
    medium: str | None = MEDIUM_GPU


@dataclass(frozen=True, slots=True)
class BlockRemoved:
    block_hashes: tuple[int, ...]
    medium: str | None = MEDIUM_GPU


@dataclass(frozen=True, slots=True)
class AllBlocksCleared:
    pass


KVCacheEvent = BlockStored | BlockRemoved | AllBlocksCleared


@dataclass(frozen=True, slots=True)
class KVEventBatch:
    ts: float
    events: tuple[KVCacheEvent, ...]
    data_parallel_rank: int | None = None
