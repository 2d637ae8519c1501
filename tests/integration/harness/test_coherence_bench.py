"""``cachecoh bench coherence`` on a broker that outlives the run (``--kafka-bootstrap``,
as against the compose Kafka): a second run must not reuse the first one's groups."""

from __future__ import annotations

import pytest

from services.adapters.embedded_broker import Broker
from services.harness.benchmarks.coherence import CoherenceBenchConfig, run_coherence_bench

pytestmark = [pytest.mark.integration]


def test_two_runs_on_one_external_broker_apply_every_event(broker: Broker) -> None:
    config = CoherenceBenchConfig(
        entries=50, events=40, rate=400, rounds=1, kafka_bootstrap=broker.bootstrap
    )
    for _ in range(2):
        report = run_coherence_bench(config)
        assert report["broker"] == "external"
        assert report["events_lost"] == 0
        assert [p["events_applied"] for p in report["phases"]] == [40, 40]
