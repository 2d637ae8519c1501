"""Settings of the coherence worker."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path
from typing import Self

from pydantic import Field, model_validator

from services.settings import CommonSettings


def _default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class CoherenceSettings(CommonSettings):
    state_dir: Path = Field(
        Path(tempfile.gettempdir()) / "cachecoh-faust",
        description="faust's data directory (no tables here, but faust creates it).",
    )
    consumer_group: str = Field("cachecoh-coherence", description="Kafka consumer group id.")
    worker_id: str = Field(default_factory=_default_worker_id, description="Recorded in audit.")
    strict_products: bool = Field(
        False, description="Dead-letter events about products the spec store does not know."
    )
    max_event_bytes: int = Field(64 * 1024, ge=1024, description="Larger events are DLQ'd.")
    dedupe_ttl_s: int = Field(24 * 3600, ge=0, description="Event-id dedupe window (0 = off).")
    generations_ttl_s: int = Field(
        7 * 24 * 3600, ge=60, description="Idle generation hashes expire (safe: missing = stale)."
    )
    metrics_port: int = Field(9102, ge=0, description="Prometheus /metrics port (0 = off).")
    metrics_host: str = Field("0.0.0.0", description="Address the metrics server binds.")  # noqa: S104
    fetch_max_wait_ms: int = Field(
        5,
        ge=1,
        description="Consumer long-poll bound; small keeps invalidation lag low. At least 1: a "
        "fetch wait of 0 never delivers anything on Tansu.",
    )
    fetch_max_wait_cap_ms: int = Field(
        1000, ge=1, description="Upper bound when a starving partition raises the fetch wait."
    )
    switch_interval_ms: float = Field(
        1.0,
        gt=0,
        le=5,
        description="The interpreter's thread switch interval (Python's default is 5): the event "
        "loop waits up to this long for the GIL while an audit write runs in its thread.",
    )
    rebalance_timeout_s: float = Field(10.0, gt=0, description="Consumer-group rebalance bound.")
    session_timeout_s: float = Field(
        10.0, gt=0, description="A silent worker loses its partitions after this."
    )
    heartbeat_interval_s: float = Field(1.0, gt=0, description="Consumer-group heartbeat.")
    commit_interval_s: float = Field(0.5, gt=0, description="How often acked offsets commit.")
    retry_initial_ms: int = Field(50, ge=1, description="First backoff on a transient error.")
    retry_max_ms: int = Field(5000, ge=1, description="Backoff cap (retries never give up).")
    batch_max: int = Field(500, ge=1, description="Records applied in one Redis pipeline.")
    audit_batch_size: int = Field(500, ge=1, description="Audit rows per SQL transaction.")
    audit_flush_ms: int = Field(20, ge=1, description="Audit rows are written in batches.")
    max_pending_acks: int = Field(5000, ge=1, description="Backpressure on unaudited events.")
    product_refresh_s: float = Field(30.0, gt=0, description="Spec-store directory refresh.")
    seed_spec_store: bool = Field(
        False,
        description="Migrate the database and seed the spec store from the demo catalog at "
        "start (the embedded demo and tests; production runs `cachecoh db upgrade`).",
    )
    replica_lease_ms: int = Field(
        10_000,
        ge=500,
        description="Coherence lease: gateways serve cached entries only while a worker's "
        "check of Redis against the log is this recent (shorter: a restored snapshot's lease "
        "is more likely expired; longer: a stopped worker turns the cache off later).",
    )
    replica_check_interval_s: float = Field(
        1.0, gt=0, description="How often the worker checks Redis against the log."
    )

    @model_validator(mode="after")
    def _lease_outlives_checks(self) -> Self:
        if self.replica_lease_ms < 2000 * self.replica_check_interval_s:
            raise ValueError(
                "replica_lease_ms must be at least twice replica_check_interval_s, or the "
                "lease lapses between two checks"
            )
        return self
