"""Settings of the consistency checker."""

from __future__ import annotations

from pydantic import Field

from services.settings import CommonSettings


class ConsistencySettings(CommonSettings):
    coherence_group: str = Field(
        "cachecoh-coherence", description="The worker group whose commits mark events acked."
    )
    checker_group: str = Field("cachecoh-consistency", description="The checker's own group.")
    probe_limit: int = Field(1000, ge=1, description="Entries probed per product and event.")
    watermark_poll_s: float = Field(0.05, gt=0, description="Committed-offset poll interval.")
    metrics_port: int = Field(9104, ge=0, description="Prometheus /metrics port (0 = off).")
    metrics_host: str = Field("0.0.0.0", description="Address the metrics server binds.")  # noqa: S104
    from_beginning: bool = Field(False, description="Check events already in the topic too.")
