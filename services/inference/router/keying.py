"""The router's view of a prompt's KV blocks: tokenised and hashed as a replica does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.core.kv_events import external_block_hash
from services.core.prefix_blocks import block_hashes
from services.core.prompt import render_chat_prompt
from services.core.routing import prefix_routing_key
from services.inference.tokenization import OfflineTokenizer


@dataclass(frozen=True, slots=True)
class PromptBlocks:
    #: vLLM's external (64-bit) hashes of the prompt's full blocks, in order.
    hashes: tuple[int, ...]
    #: The consistent-hash key (chained hash after ``affinity_blocks`` blocks).
    prefix_key: str | None

    def block_keys(self) -> list[str]:
        return [format(h, "016x") for h in self.hashes]


class PromptHasher:
    """Block hashes of a chat request exactly as a replica computes them: the replicas'
    tokenizer, the ChatML rendering, vLLM's ``sha256_cbor`` chain from ``NONE_HASH``
    (the replicas' ``PYTHONHASHSEED``) and the ``cache_salt`` in the first block."""

    def __init__(
        self,
        tokenizer: OfflineTokenizer,
        *,
        block_size: int,
        affinity_blocks: int,
        hash_seed: str,
    ) -> None:
        self._tokenizer = tokenizer
        self._block_size = block_size
        self._affinity_blocks = affinity_blocks
        self._hash_seed = hash_seed

    def token_ids(self, messages: Sequence[Mapping[str, Any]], *, limit: int | None) -> list[int]:
        # ChatML markers are special tokens, so messages tokenise independently and a
        # limited key needs only the leading ones.
        token_ids: list[int] = []
        for message in messages:
            token_ids += self._tokenizer.encode(
                render_chat_prompt([message], add_generation_prompt=False)
            )
            if limit is not None and len(token_ids) >= limit:
                return token_ids[:limit]
        if limit is None:
            token_ids += self._tokenizer.encode(render_chat_prompt([], add_generation_prompt=True))
        return token_ids

    def blocks(
        self, messages: Sequence[Mapping[str, Any]], salt: str | None, *, whole_prompt: bool
    ) -> PromptBlocks:
        """``whole_prompt``: hash every full block (KV-aware routing), else only the
        leading ``affinity_blocks`` (the consistent-hash key)."""
        limit = None if whole_prompt else self._block_size * self._affinity_blocks
        hashes = block_hashes(
            self.token_ids(messages, limit=limit),
            salt=salt,
            block_size=self._block_size,
            hash_seed=self._hash_seed,
        )
        return PromptBlocks(
            hashes=tuple(external_block_hash(h) for h in hashes),
            prefix_key=prefix_routing_key(hashes, self._affinity_blocks),
        )
