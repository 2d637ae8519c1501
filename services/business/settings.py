"""Settings of the business-system processes (spec store CLI, outbox relay, publisher)."""

from __future__ import annotations

from pydantic import Field

from services.settings import CommonSettings


class BusinessSettings(CommonSettings):
    event_source: str = Field("cachecoh/spec-store", description="CloudEvents `source`.")
    publish_timeout_s: float = Field(10.0, gt=0, description="Broker acknowledgement budget.")
    relay_poll_s: float = Field(0.2, gt=0, description="Outbox poll interval.")
    relay_batch: int = Field(500, ge=1, description="Outbox rows per relay pass.")
    relay_metrics_port: int = Field(9103, ge=0, description="Relay /metrics port (0 = off).")
