"""Router settings (environment prefix ``CACHECOH_ROUTER_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
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
        RoutingPolicy.PREFIX_AFFINITY, description="round_robin, least_loaded or prefix_affinity."
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

    @field_validator("upstreams", mode="before")
    @classmethod
    def _split_upstreams(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            return [str(url).rstrip("/") for url in value]
        return value
