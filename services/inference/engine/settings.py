"""Offline engine settings (environment prefix ``CACHECOH_ENGINE_``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.inference.tokenization import DEFAULT_TOKENIZER_PATH
from services.paths import DEMO_DATA_DIR


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CACHECOH_ENGINE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8100, ge=0, le=65535)
    served_model_name: str = "cachecoh-offline"
    tokenizer_path: Path = DEFAULT_TOKENIZER_PATH
    #: attributes.json: the question words that name attributes and constraint values.
    vocabulary_path: Path | None = DEMO_DATA_DIR / "attributes.json"
    block_size: int = Field(default=16, ge=1)
    #: KV block budget of the simulated replica (vLLM: num_gpu_blocks).
    kv_cache_blocks: int = Field(default=4096, ge=1)
    max_model_len: int = Field(default=8192, ge=1)
    default_max_tokens: int = Field(default=256, ge=1)
    #: Simulated prefill time per prompt token not served from the prefix cache.
    seconds_per_prefill_token: float = Field(default=0.00002, ge=0.0)
    #: Simulated decode time per generated token (make an upstream slow in tests).
    seconds_per_output_token: float = Field(default=0.0005, ge=0.0)
    #: vLLM's --enable-prompt-tokens-details: report usage.prompt_tokens_details.
    enable_prompt_tokens_details: bool = True
    log_level: str = "warning"
