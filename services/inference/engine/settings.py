"""Offline engine settings (environment prefix ``CACHECOH_ENGINE_``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.inference.tokenization import DEFAULT_TOKENIZER_PATH
from services.paths import DEMO_DATA_DIR


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CACHECOH_ENGINE_", extra="ignore")

    host: str = Field("127.0.0.1", description="Address the engine binds.")
    port: int = Field(default=8100, ge=0, le=65535, description="Port the engine binds.")
    served_model_name: str = Field("cachecoh-offline", description="Model name in /v1/models.")
    tokenizer_path: Path = Field(
        DEFAULT_TOKENIZER_PATH, description="The BPE tokenizer trained on the demo corpus."
    )
    vocabulary_path: Path | None = Field(
        DEMO_DATA_DIR / "attributes.json",
        description="attributes.json: words that name attributes and constraint values.",
    )
    block_size: int = Field(default=16, ge=1, description="KV block size in tokens (vLLM's).")
    kv_cache_blocks: int = Field(
        default=4096, ge=1, description="KV block budget of the simulated replica."
    )
    max_model_len: int = Field(default=8192, ge=1, description="Context length limit.")
    default_max_tokens: int = Field(default=256, ge=1, description="max_tokens when unset.")
    seconds_per_prefill_token: float = Field(
        default=0.00002, ge=0.0, description="Simulated prefill time per uncached prompt token."
    )
    seconds_per_output_token: float = Field(
        default=0.0005, ge=0.0, description="Simulated decode time per generated token."
    )
    enable_prompt_tokens_details: bool = Field(
        True,
        description="Report usage.prompt_tokens_details.cached_tokens when tokens were "
        "cached (like vLLM's flag).",
    )
    hash_seed: str = Field(
        "0",
        description="vLLM's PYTHONHASHSEED: the root of the block-hash chain (NONE_HASH).",
    )
    kv_events_endpoint: str | None = Field(
        None,
        description="Publish KV cache events here (ZMQ PUB, vLLM's wire format); "
        "'tcp://*:5557' binds, 'tcp://host:port' connects. Unset: no events.",
    )
    kv_events_topic: str = Field("", description="Topic frame of every KV event message.")
    log_level: str = Field("warning", description="uvicorn log level.")
