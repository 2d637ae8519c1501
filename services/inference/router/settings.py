"""Router settings (environment prefix ``CACHECOH_ROUTER_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from services.core.routing import RoutingPolicy
from services.inference.tokenization import DEFAULT_TOKENIZER_PATH


class RouterSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CACHECOH_ROUTER_", extra="ignore")

    host: str = Field("127.0.0.1", description="Address the router binds.")
    port: int = Field(default=8000, ge=0, le=65535, description="Port the router binds.")
    upstreams: Annotated[list[str], NoDecode] = Field(
        min_length=1, description="Replica base URLs, comma-separated."
    )
    policy: RoutingPolicy = Field(
        RoutingPolicy.PREFIX_AFFINITY,
        description="round_robin, least_loaded, prefix_affinity or kv_aware (needs "
        "kv_event_endpoints).",
    )
    kv_event_endpoints: Annotated[list[str], NoDecode] = Field(
        default=[],
        description="kv_aware: each upstream's KV-event publisher (vLLM --kv-events-config "
        "endpoint), comma-separated, in the order of upstreams.",
    )
    kv_events_topic: str = Field("", description="Topic the replicas publish KV events on.")
    hash_seed: str = Field(
        "0",
        description="The replicas' PYTHONHASHSEED: vLLM derives its first parent block hash "
        "(NONE_HASH) from it, so request hashes meet event hashes only with the same value.",
    )
    kv_max_prompt_blocks: int = Field(
        default=512,
        ge=1,
        description="kv_aware: leading blocks of a prompt the router hashes (bounds the "
        "work one request costs; 512 blocks = 8192 tokens).",
    )
    max_kv_usage: float = Field(
        default=0.95,
        gt=0.0,
        le=1.0,
        description="kv_aware: a replica at this vllm:kv_cache_usage_perc counts as full.",
    )
    load_factor: float = Field(
        default=1.25,
        ge=1.0,
        description="Bounded load: an owner may take this times its fair share of recent "
        "decisions before its keys overflow to the least-loaded replica.",
    )
    load_window: int = Field(default=256, ge=1, description="Decisions the load bound looks at.")
    max_in_flight_gap: int = Field(
        default=16,
        ge=1,
        description="An owner this many requests in flight ahead of the least-loaded overflows.",
    )
    affinity_blocks: int = Field(
        default=16, ge=1, description="Leading 16-token blocks hashed into the routing key."
    )
    block_size: int = Field(default=16, ge=1, description="Tokens per block (the replicas').")
    ring_vnodes: int = Field(default=160, ge=1, description="Virtual nodes per replica.")
    tokenizer_path: Path = Field(
        DEFAULT_TOKENIZER_PATH,
        description="Must be the replicas' tokenizer for keys to follow their block boundaries.",
    )
    health_interval_seconds: float = Field(default=1.0, gt=0.0, description="Health check period.")
    health_timeout_seconds: float = Field(default=1.0, gt=0.0, description="Health check timeout.")
    eject_after_failures: int = Field(
        default=2,
        ge=1,
        description="Failed health checks before ejection (a failed proxy connection ejects).",
    )
    connect_timeout_seconds: float = Field(default=1.0, gt=0.0, description="Upstream connect.")
    request_timeout_seconds: float = Field(default=120.0, gt=0.0, description="Upstream request.")
    metrics_scrape_interval_seconds: float = Field(
        default=5.0, gt=0.0, description="Replica /metrics scrape period (metrics bridge)."
    )
    log_level: str = Field("warning", description="uvicorn log level.")

    @model_validator(mode="after")
    def _kv_endpoints_pair_with_upstreams(self) -> RouterSettings:
        if self.kv_event_endpoints and len(self.kv_event_endpoints) != len(self.upstreams):
            raise ValueError(
                f"kv_event_endpoints has {len(self.kv_event_endpoints)} entries for "
                f"{len(self.upstreams)} upstreams: give one per upstream, in the same order"
            )
        if self.policy is RoutingPolicy.KV_AWARE and not self.kv_event_endpoints:
            raise ValueError("policy kv_aware needs kv_event_endpoints (one per upstream)")
        return self

    @field_validator("kv_event_endpoints", mode="before")
    @classmethod
    def _split_endpoints(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            for endpoint in value:
                if not str(endpoint).startswith(("tcp://", "ipc://", "inproc://")):
                    raise ValueError(
                        f"KV-event endpoint {endpoint!r} is not a ZMQ address "
                        "(tcp://host:port, ipc://path)"
                    )
        return value

    @field_validator("upstreams", mode="before")
    @classmethod
    def _split_upstreams(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            return [str(url).rstrip("/") for url in value]
        return value
