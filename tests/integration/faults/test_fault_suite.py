"""The fault suite at CI size, and proof that its stale-read check can fail.

The figures of the full run come from ``cachecoh check faults --duration 600 --json``;
here the same code runs for under a minute with a few of each fault. A run lasts until its
whole plan ran (not a fixed time), so a loaded machine makes it longer, never weaker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.harness.faults.load import LoadShape
from services.harness.faults.rig import RigConfig
from services.harness.faults.schedule import FaultPlan
from services.harness.faults.suite import FaultSuiteConfig, run_fault_suite

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_no_lost_event_and_no_stale_read_under_faults(postgres_url: str, tmp_path: Path) -> None:
    report = run_fault_suite(
        FaultSuiteConfig(
            # At least 45 s, then on until every planned fault ran and 50k reads were checked.
            duration_s=45,
            min_reads=50_000,
            plan=FaultPlan(
                worker_kills=4,
                broker_stalls=1,
                redis_restarts=1,
                stale_restores=2,
                redis_flushes=2,
            ),
            load=LoadShape(read_rate=2000),
            rig=RigConfig(database_url=postgres_url, work_dir=tmp_path),
        )
    )
    details = report.details
    assert report.lost_events == 0, details["lost_event_ids"]
    assert report.stale_reads == 0, details["reads"]["stale_examples"]
    assert report.events_published > 1000
    assert report.events_applied == report.events_published
    assert report.reads_checked >= 50_000
    assert details["reads"]["hits_under_watermark"] > 10_000  # the check had work to do
    assert (report.worker_kills, report.broker_stalls, report.redis_restarts) == (4, 1, 1)
    assert (report.stale_snapshot_restores, report.redis_flushes) == (2, 2)
    assert report.same_id_other_source_events > 0  # and none of them lost (lost_events)
    after = details["reads"]["after_faults"]
    assert after["restore_stale_snapshot"]["reads_checked"] > 0
    assert after["flush_redis"]["reads_checked"] > 0
    assert all(row["stale_reads"] == 0 for row in after.values())
    assert details["faults"]["worker_unexpected_exits"] == 0
    assert details["events"]["duplicates_published"] > 0
    assert details["events"]["reordered_pairs"] > 0
    assert details["reads"]["fills_refused"] > 0  # slow fills did race updates
    assert report.passed


def test_the_checker_reports_answers_planted_without_the_guard(tmp_path: Path) -> None:
    """A filler that writes an old answer under current generations (a plain SET, no
    guard) breaks promise 1; the suite must say so."""
    report = run_fault_suite(
        FaultSuiteConfig(
            duration_s=12,
            plan=FaultPlan(worker_kills=0, broker_stalls=0, redis_restarts=0),
            load=LoadShape(read_rate=1000, plant_stale_fraction=0.5, slow_fill_fraction=0),
            rig=RigConfig(redis_aof=False, work_dir=tmp_path),
        )
    )
    reads = report.details["reads"]
    assert reads["planted_stale"] > 0
    assert report.stale_reads > 0
    assert all(s["served_version"] < s["floor"] for s in reads["stale_examples"])
    assert report.lost_events == 0
    assert not report.passed


def test_without_the_replica_guard_a_stale_snapshot_serves_stale_answers(
    tmp_path: Path,
) -> None:
    """The restores really roll entries and generations back: read without the guard,
    acknowledged events are undone and their old answers served."""
    report = run_fault_suite(
        FaultSuiteConfig(
            duration_s=15,  # and on until the three restores ran
            plan=FaultPlan(
                worker_kills=0,
                broker_stalls=0,
                redis_restarts=0,
                stale_restores=3,
                snapshot_age_s=(3.0, 5.0),
            ),
            load=LoadShape(read_rate=1500),
            rig=RigConfig(work_dir=tmp_path),
            replica_guard=False,
        )
    )
    assert report.stale_snapshot_restores == 3
    assert report.details["reads"]["after_faults"]["restore_stale_snapshot"]["stale_reads"] > 0
    assert report.lost_events == 0
    assert not report.passed
