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

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    #: Replica base URLs, comma-separated in the environment (``http://h:8100,http://h:8101``).
    upstreams: Annotated[list[str], NoDecode] = Field(min_length=1)
    policy: RoutingPolicy = RoutingPolicy.PREFIX_AFFINITY
    #: Bounded-load factor c: an owner may take up to c x the fair share of the requests
    #: in the last ``load_window`` decisions before its keys overflow.
    load_factor: float = Field(default=1.25, ge=1.0)
    load_window: int = Field(default=256, ge=1)
    #: An owner this many requests in flight ahead of the least-loaded replica overflows.
    max_in_flight_gap: int = Field(default=16, ge=1)
    #: Leading 16-token blocks hashed into the routing key.
    affinity_blocks: int = Field(default=16, ge=1)
    block_size: int = Field(default=16, ge=1)
    ring_vnodes: int = Field(default=160, ge=1)
    #: Must be the replicas' tokenizer for the key to follow their block boundaries.
    tokenizer_path: Path = DEFAULT_TOKENIZER_PATH
    health_interval_seconds: float = Field(default=1.0, gt=0.0)
    health_timeout_seconds: float = Field(default=1.0, gt=0.0)
    #: Consecutive failed health checks before a replica is ejected (a failed proxy
    #: connection ejects at once).
    eject_after_failures: int = Field(default=2, ge=1)
    connect_timeout_seconds: float = Field(default=1.0, gt=0.0)
    request_timeout_seconds: float = Field(default=120.0, gt=0.0)
    metrics_scrape_interval_seconds: float = Field(default=5.0, gt=0.0)
    log_level: str = "warning"

    @field_validator("upstreams", mode="before")
    @classmethod
    def _split_upstreams(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            return [str(url).rstrip("/") for url in value]
        return value
