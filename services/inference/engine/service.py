"""The offline engine's request handling: tokenise, account for the prefix cache, answer.

Exceptions (translated to OpenAI error responses by the app)::

    EngineError
    ├── ModelNotFoundError          404: the request names another model
    └── ContextLengthExceededError  400: prompt + output would exceed max_model_len
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from services.core.errors import CachecohError
from services.core.kv_events import KVCacheEvent
from services.core.openai_contract import ChatCompletionRequest
from services.core.prefix_blocks import Admission, PrefixCacheModel, block_hashes
from services.core.prompt import render_chat_prompt
from services.inference.engine.answer import Vocabulary, compose_answer
from services.inference.engine.metrics import EngineMetrics
from services.inference.engine.settings import EngineSettings
from services.inference.tokenization import OfflineTokenizer, TextPiece

#: Said by /v1/models and the docs: this is not a language model.
STAND_IN_NOTICE = (
    "cachecoh offline engine: a stand-in for vLLM with the same HTTP contract and metric "
    "names. It answers extractively from the facts in the prompt and models vLLM's prefix "
    "cache; it is not a language model."
)


class EngineError(CachecohError):
    """Base class for errors the engine reports to its client."""


class ModelNotFoundError(EngineError):
    def __init__(self, requested: str, served: str) -> None:
        self.requested = requested
        self.served = served
        super().__init__(f"The model `{requested}` does not exist (this engine serves `{served}`).")


class ContextLengthExceededError(EngineError):
    def __init__(self, prompt_tokens: int, max_tokens: int, limit: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.max_tokens = max_tokens
        self.limit = limit
        super().__init__(
            f"This model's maximum context length is {limit} tokens. However, you requested "
            f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, "
            f"{max_tokens} in the completion)."
        )


@dataclass(frozen=True, slots=True)
class PreparedCompletion:
    request_id: str
    created: int
    arrived_at: float
    prompt_tokens: int
    #: Prompt and generated tokens whose KV the request computes (the last output has none).
    computed_token_ids: tuple[int, ...]
    hashes: tuple[bytes, ...]
    #: Hashes of the full blocks after the prompt's, filled by generated tokens.
    generated_hashes: tuple[bytes, ...]
    pieces: tuple[TextPiece, ...]
    finish_reason: str


Sleep = Callable[[float], Awaitable[None]]


class KvEventSink(Protocol):
    """Where the engine's KV cache events go (the ZMQ publisher in production)."""

    def publish(self, events: Sequence[KVCacheEvent]) -> None: ...

    def close(self) -> None: ...


class OfflineEngine:
    def __init__(
        self,
        settings: EngineSettings,
        tokenizer: OfflineTokenizer,
        vocabulary: Vocabulary,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        kv_events: KvEventSink | None = None,
    ) -> None:
        self.settings = settings
        self.tokenizer = tokenizer
        self.vocabulary = vocabulary
        self.cache = PrefixCacheModel(settings.kv_cache_blocks, block_size=settings.block_size)
        self.metrics = EngineMetrics(
            settings.served_model_name,
            block_size=settings.block_size,
            num_blocks=settings.kv_cache_blocks,
        )
        self._clock = clock
        self._sleep = sleep
        self._evicted_reported = 0
        self._kv_events = kv_events

    @property
    def model(self) -> str:
        return self.settings.served_model_name

    def prepare(self, request: ChatCompletionRequest) -> PreparedCompletion:
        arrived_at = self._clock()
        if request.model != self.model:
            raise ModelNotFoundError(request.model, self.model)
        messages = [m.model_dump() for m in request.messages]
        prompt_ids = self.tokenizer.encode(render_chat_prompt(messages))
        limit = request.output_limit(self.settings.default_max_tokens)
        if len(prompt_ids) + limit > self.settings.max_model_len:
            raise ContextLengthExceededError(len(prompt_ids), limit, self.settings.max_model_len)
        pieces = self.tokenizer.pieces(compose_answer(messages, self.vocabulary))
        kept = pieces[:limit]
        # The last generated token has no KV yet when the request finishes.
        computed = prompt_ids + [piece.token_id for piece in kept[:-1]]
        hashes = block_hashes(
            computed,
            salt=request.cache_salt,
            block_size=self.settings.block_size,
            hash_seed=self.settings.hash_seed,
        )
        prompt_blocks = len(prompt_ids) // self.settings.block_size
        return PreparedCompletion(
            request_id=f"chatcmpl-{uuid.uuid4().hex}",
            created=int(time.time()),
            arrived_at=arrived_at,
            prompt_tokens=len(prompt_ids),
            computed_token_ids=tuple(computed),
            hashes=hashes[:prompt_blocks],
            generated_hashes=hashes[prompt_blocks:],
            pieces=tuple(kept),
            finish_reason="length" if len(pieces) > limit else "stop",
        )

    def _start(self, prepared: PreparedCompletion) -> Admission:
        admission = self.cache.admit(
            prepared.hashes,
            prepared.prompt_tokens,
            reserve_tokens=len(prepared.pieces),
            token_ids=prepared.computed_token_ids,
        )
        self.metrics.prefix_cache_queries.inc(admission.query_tokens)
        self.metrics.prefix_cache_hits.inc(admission.hit_tokens)
        self.metrics.prompt_tokens.inc(prepared.prompt_tokens)
        self.metrics.requests_running.inc()
        self._report_cache()
        return admission

    def _report_cache(self) -> None:
        events = self.cache.drain_events()
        if events and self._kv_events is not None:
            self._kv_events.publish(events)
        stats = self.cache.stats()
        self.metrics.kv_cache_usage.set(stats.usage)
        evicted = stats.evicted_blocks - self._evicted_reported
        if evicted > 0:
            self.metrics.prefix_cache_evicted_blocks.inc(evicted)
            self._evicted_reported = stats.evicted_blocks

    def _finish(self, prepared: PreparedCompletion, admission: Admission, completed: bool) -> None:
        block = self.settings.block_size
        generated = prepared.generated_hashes if completed else ()
        start = len(prepared.hashes) * block
        self.cache.release(
            admission,
            generated_hashes=generated,
            generated_token_ids=prepared.computed_token_ids[start : start + len(generated) * block],
        )
        self.metrics.requests_running.dec()
        self._report_cache()
        if completed:
            self.metrics.generation_tokens.inc(len(prepared.pieces))
            self.metrics.e2e_latency.observe(self._clock() - prepared.arrived_at)
            self.metrics.request_finished(prepared.finish_reason)

    async def _prefill(self, prepared: PreparedCompletion, admission: Admission) -> None:
        uncached = prepared.prompt_tokens - admission.hit_tokens
        await self._sleep(uncached * self.settings.seconds_per_prefill_token)
        self.metrics.time_to_first_token.observe(self._clock() - prepared.arrived_at)

    def _usage(self, prepared: PreparedCompletion, admission: Admission) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": prepared.prompt_tokens,
            "completion_tokens": len(prepared.pieces),
            "total_tokens": prepared.prompt_tokens + len(prepared.pieces),
        }
        # vLLM sends the details only when some prompt tokens came from the cache.
        if self.settings.enable_prompt_tokens_details and admission.hit_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": admission.hit_tokens}
        return usage

    async def complete(self, prepared: PreparedCompletion) -> dict[str, Any]:
        """A non-streaming ``chat.completion``."""
        admission = self._start(prepared)
        completed = False
        try:
            await self._prefill(prepared, admission)
            decode_steps = max(0, len(prepared.pieces) - 1)
            await self._sleep(decode_steps * self.settings.seconds_per_output_token)
            completed = True
        finally:
            self._finish(prepared, admission, completed)
        return {
            "id": prepared.request_id,
            "object": "chat.completion",
            "created": prepared.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "".join(piece.text for piece in prepared.pieces),
                    },
                    "logprobs": None,
                    "finish_reason": prepared.finish_reason,
                }
            ],
            "usage": self._usage(prepared, admission),
        }

    def _chunk(
        self, prepared: PreparedCompletion, delta: dict[str, str], finish: str | None
    ) -> str:
        return _sse(
            {
                "id": prepared.request_id,
                "object": "chat.completion.chunk",
                "created": prepared.created,
                "model": self.model,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
        )

    async def stream(
        self, prepared: PreparedCompletion, *, include_usage: bool
    ) -> AsyncIterator[str]:
        """Server-sent ``chat.completion.chunk`` events, one per token, then ``[DONE]``."""
        admission = self._start(prepared)
        completed = False
        try:
            await self._prefill(prepared, admission)
            yield self._chunk(prepared, {"role": "assistant", "content": ""}, None)
            for index, piece in enumerate(prepared.pieces):
                if index:
                    await self._sleep(self.settings.seconds_per_output_token)
                yield self._chunk(prepared, {"content": piece.text}, None)
            yield self._chunk(prepared, {}, prepared.finish_reason)
            if include_usage:
                yield _sse(
                    {
                        "id": prepared.request_id,
                        "object": "chat.completion.chunk",
                        "created": prepared.created,
                        "model": self.model,
                        "choices": [],
                        "usage": self._usage(prepared, admission),
                    }
                )
            yield "data: [DONE]\n\n"
            completed = True
        finally:
            self._finish(prepared, admission, completed)

    def reset_prefix_cache(self) -> int:
        dropped = self.cache.reset()
        self._report_cache()
        return dropped

    def close(self) -> None:
        if self._kv_events is not None:
            self._kv_events.close()

    def models_payload(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {
                    "id": self.model,
                    "object": "model",
                    "created": 0,
                    "owned_by": "cachecoh-offline-engine",
                    "root": self.model,
                    "parent": None,
                    "max_model_len": self.settings.max_model_len,
                    "permission": [],
                    "stand_in_for": "vllm",
                    "description": STAND_IN_NOTICE,
                }
            ],
        }


def _sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))}\n\n"
