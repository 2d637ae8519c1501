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
        max_prompt_blocks: int = 512,
    ) -> None:
        self._tokenizer = tokenizer
        self._block_size = block_size
        self._affinity_blocks = affinity_blocks
        self._hash_seed = hash_seed
        self._max_prompt_blocks = max_prompt_blocks

    def token_ids(self, messages: Sequence[Mapping[str, Any]], *, limit: int) -> list[int]:
        # ChatML markers are special tokens, so messages tokenise independently and a
        # limited key needs only the leading ones.
        token_ids: list[int] = []
        for message in messages:
            token_ids += self._tokenizer.encode(
                render_chat_prompt([message], add_generation_prompt=False)
            )
            if len(token_ids) >= limit:
                return token_ids[:limit]
        token_ids += self._tokenizer.encode(render_chat_prompt([], add_generation_prompt=True))
        return token_ids[:limit]

    def blocks(
        self, messages: Sequence[Mapping[str, Any]], salt: str | None, *, whole_prompt: bool
    ) -> PromptBlocks:
        """``whole_prompt``: hash the full blocks (KV-aware routing; at most
        ``max_prompt_blocks``, so a huge prompt costs bounded work), else only the leading
        ``affinity_blocks`` (the consistent-hash key)."""
        blocks = self._max_prompt_blocks if whole_prompt else self._affinity_blocks
        limit = self._block_size * blocks
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
