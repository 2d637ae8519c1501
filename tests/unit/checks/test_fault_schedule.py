"""The fault scheduler runs its whole plan even when faults take longer than planned."""

from __future__ import annotations

import random
import time
from typing import Any, cast

from services.harness.faults.schedule import FaultPlan, FaultScheduler


class _SlowWorkers:
    """Our own supervisor port: every kill and rejoin takes ``rejoin_s``."""

    def __init__(self, rejoin_s: float) -> None:
        self.rejoin_s_each = rejoin_s
        self.kills = 0
        self.starts = 0
        self.unexpected_exits = 0
        self.start_failures = 0
        self.rejoin_s: list[float] = []

    def ensure_running(self) -> None:
        return None

    def kill_and_restart(self) -> None:
        time.sleep(self.rejoin_s_each)
        self.kills += 1
        self.rejoin_s.append(self.rejoin_s_each)


def _run(duration_s: float, overrun_s: float) -> FaultScheduler:
    workers = _SlowWorkers(rejoin_s=0.3)
    scheduler = FaultScheduler(
        FaultPlan(worker_kills=3, broker_stalls=0, redis_restarts=0),
        duration_s,
        cast(Any, workers),
        cast(Any, None),
        cast(Any, None),
        random.Random(1),
        overrun_s=overrun_s,
    ).start()
    deadline = time.monotonic() + 10
    while not scheduler.finished and time.monotonic() < deadline:
        time.sleep(0.02)
    scheduler.stop()
    return scheduler


def test_a_late_schedule_runs_to_its_end_within_the_overrun() -> None:
    # Three kills planned within 0.3 s, each taking 0.3 s: the plan ends near 1 s.
    scheduler = _run(duration_s=0.3, overrun_s=5)
    counts = scheduler.counts()
    assert scheduler.finished
    assert (counts.worker_kills, counts.faults_skipped) == (3, 0)


def test_faults_still_due_after_the_overrun_are_skipped_and_counted() -> None:
    scheduler = _run(duration_s=0.3, overrun_s=0)
    counts = scheduler.counts()
    assert counts.worker_kills < 3
    assert counts.worker_kills + counts.faults_skipped == 3
