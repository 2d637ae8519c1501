"""Faults on a schedule: worker SIGKILLs, broker stalls, Redis restarts.

One thread runs them one after another at planned times over the run: kills evenly
spaced (with jitter, so they land mid-batch, mid-commit or mid-audit), stalls and
restarts at random times between them. After a kill the worker is restarted at once and
the scheduler waits until it owns partitions again (the rejoin time is measured). A
worker that exits without being killed is counted and restarted.
"""

from __future__ import annotations

import logging
import random
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from services.adapters.embedded_broker import EmbeddedBroker
from services.adapters.embedded_redis import RedisServerProcess
from services.coherence.process import WorkerProcess

log = logging.getLogger(__name__)


class Fault(StrEnum):
    KILL_WORKER = "kill_worker"
    STALL_BROKER = "stall_broker"
    RESTART_REDIS = "restart_redis"


@dataclass(frozen=True, slots=True)
class FaultPlan:
    worker_kills: int
    broker_stalls: int
    redis_restarts: int
    stall_s: tuple[float, float] = (1.0, 3.0)

    def timeline(self, duration_s: float, rng: random.Random) -> list[tuple[float, Fault]]:
        """(seconds into the run, fault), sorted; nothing in the first or last 5 %."""
        start, end = duration_s * 0.05, duration_s * 0.95
        span = end - start
        planned: list[tuple[float, Fault]] = []
        if self.worker_kills:
            step = span / self.worker_kills
            planned += [
                (start + step * (i + rng.uniform(0.3, 0.9)), Fault.KILL_WORKER)
                for i in range(self.worker_kills)
            ]
        planned += [
            (rng.uniform(start, end), Fault.STALL_BROKER) for _ in range(self.broker_stalls)
        ]
        planned += [
            (rng.uniform(start, end), Fault.RESTART_REDIS) for _ in range(self.redis_restarts)
        ]
        return sorted(planned)


@dataclass(frozen=True, slots=True)
class FaultCounts:
    worker_kills: int
    worker_starts: int
    worker_unexpected_exits: int
    worker_start_failures: int
    worker_rejoin_s_mean: float | None
    worker_rejoin_s_max: float | None
    broker_stalls: int
    broker_stalled_s: float
    redis_restarts: int
    redis_restart_s_max: float | None
    faults_skipped: int  # planned faults the run ended before reaching


class WorkerSupervisor:
    """Keeps one coherence worker running; knows how often it was killed and restarted."""

    def __init__(self, new_worker: Callable[[str], WorkerProcess], ready_timeout_s: float = 90):
        self._new_worker = new_worker
        self._ready_timeout_s = ready_timeout_s
        self._lock = threading.Lock()
        self.current: WorkerProcess | None = None
        self.starts = 0
        self.kills = 0
        self.unexpected_exits = 0
        self.start_failures = 0
        self.rejoin_s: list[float] = []

    def start(self) -> float:
        """Start a worker and wait until it owns partitions; retried until it does."""
        while True:
            with self._lock:
                self.starts += 1
                worker = self._new_worker(f"worker-{self.starts:03d}").start()
                self.current = worker
            began = time.monotonic()
            try:
                worker.wait_ready(self._ready_timeout_s)
                return time.monotonic() - began
            except (TimeoutError, RuntimeError) as exc:
                self.start_failures += 1
                log.warning("worker %d did not become ready (%s); restarting", self.starts, exc)
                worker.kill()

    def kill_and_restart(self) -> None:
        with self._lock:
            if self.current is not None:
                self.current.kill()
                self.kills += 1
        self.rejoin_s.append(self.start())

    def ensure_running(self) -> None:
        """Restart a worker that exited without being killed (that must never happen)."""
        if self.current is not None and not self.current.running:
            self.unexpected_exits += 1
            log.warning("the worker exited on its own; restarting it")
            self.start()

    def stop(self) -> None:
        with self._lock:
            if self.current is not None:
                self.current.stop()


class FaultScheduler:
    def __init__(
        self,
        plan: FaultPlan,
        duration_s: float,
        workers: WorkerSupervisor,
        broker: EmbeddedBroker,
        redis: RedisServerProcess,
        rng: random.Random,
    ) -> None:
        self._timeline = plan.timeline(duration_s, rng)
        self._plan = plan
        self._duration_s = duration_s
        self._workers = workers
        self._broker = broker
        self._redis = redis
        self._rng = rng
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="faults", daemon=True)
        self._started = 0.0
        self.broker_stalls = 0
        self.broker_stalled_s = 0.0
        self.redis_restarts = 0
        self.redis_restart_s: list[float] = []
        self.skipped = 0
        self.error: BaseException | None = None

    def start(self) -> FaultScheduler:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def _run(self) -> None:
        try:
            for n, (at_s, fault) in enumerate(self._timeline):
                while not self._stop.is_set():
                    self._workers.ensure_running()
                    wait = self._started + at_s - time.monotonic()
                    if wait <= 0:
                        break
                    self._stop.wait(min(wait, 0.5))
                if self._stop.is_set() or time.monotonic() - self._started > self._duration_s:
                    self.skipped = len(self._timeline) - n
                    return
                self._inject(fault)
        except BaseException as exc:  # surfaced by the suite: a harness error fails the run
            self.error = exc
            log.exception("fault scheduler failed")

    def _inject(self, fault: Fault) -> None:
        if fault is Fault.KILL_WORKER:
            self._workers.kill_and_restart()
        elif fault is Fault.STALL_BROKER:
            stalled = self._rng.uniform(*self._plan.stall_s)
            self._broker.pause()
            try:
                self._stop.wait(stalled)
            finally:
                self._broker.resume()
            self.broker_stalls += 1
            self.broker_stalled_s += stalled
        else:
            began = time.monotonic()
            self._redis.restart()
            self.redis_restart_s.append(time.monotonic() - began)
            self.redis_restarts += 1

    def counts(self) -> FaultCounts:
        rejoin = self._workers.rejoin_s
        return FaultCounts(
            worker_kills=self._workers.kills,
            worker_starts=self._workers.starts,
            worker_unexpected_exits=self._workers.unexpected_exits,
            worker_start_failures=self._workers.start_failures,
            worker_rejoin_s_mean=round(statistics.fmean(rejoin), 2) if rejoin else None,
            worker_rejoin_s_max=round(max(rejoin), 2) if rejoin else None,
            broker_stalls=self.broker_stalls,
            broker_stalled_s=round(self.broker_stalled_s, 2),
            redis_restarts=self.redis_restarts,
            redis_restart_s_max=round(max(self.redis_restart_s), 2)
            if self.redis_restart_s
            else None,
            faults_skipped=self.skipped,
        )
