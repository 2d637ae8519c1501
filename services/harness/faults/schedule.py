"""Faults on a schedule: worker SIGKILLs, broker stalls, Redis restarts, Redis restores
from a stale snapshot and Redis flushes.

One thread runs them one after another at planned times over the run: kills evenly
spaced (with jitter, so they land mid-batch, mid-commit or mid-audit), the others at
random times between them. A stale-snapshot restore saves an RDB snapshot, lets traffic
(and acknowledged events) go on for a while, then kills Redis and restarts it from that
snapshot: entries, generations, dedupe markers and the replica record roll back together,
as after a crash with RDB persistence, a restore from a backup or a failover to a lagging
replica. A flush empties the dataset (a flushed or replaced instance). After a kill the
worker is restarted at once and the scheduler waits until it owns partitions again (the
rejoin time is measured). A worker that exits without being killed is counted and
restarted.
"""

from __future__ import annotations

import logging
import random
import shutil
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import redis

from services.adapters.embedded_broker import EmbeddedBroker
from services.adapters.embedded_redis import RedisServerProcess
from services.coherence.process import WorkerProcess

log = logging.getLogger(__name__)


class Fault(StrEnum):
    KILL_WORKER = "kill_worker"
    STALL_BROKER = "stall_broker"
    RESTART_REDIS = "restart_redis"
    RESTORE_STALE_SNAPSHOT = "restore_stale_snapshot"
    FLUSH_REDIS = "flush_redis"


@dataclass(frozen=True, slots=True)
class FaultPlan:
    worker_kills: int
    broker_stalls: int
    redis_restarts: int
    stale_restores: int = 0
    redis_flushes: int = 0
    stall_s: tuple[float, float] = (1.0, 3.0)
    #: How old the snapshot is when Redis restarts from it (some older than the worker's
    #: coherence lease, some younger: both paths of the guard are exercised).
    snapshot_age_s: tuple[float, float] = (0.5, 8.0)

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
        planned += [
            (rng.uniform(start, end), Fault.RESTORE_STALE_SNAPSHOT)
            for _ in range(self.stale_restores)
        ]
        planned += [(rng.uniform(start, end), Fault.FLUSH_REDIS) for _ in range(self.redis_flushes)]
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
    stale_restores: int
    stale_snapshot_age_s_max: float | None
    redis_flushes: int
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
        overrun_s: float = 0.0,
    ) -> None:
        self._timeline = plan.timeline(duration_s, rng)
        self._plan = plan
        #: A fault still due after ``duration_s + overrun_s`` is skipped (and counted): on a
        #: loaded machine rejoins take longer and the schedule runs late.
        self._deadline_s = duration_s + overrun_s
        self._workers = workers
        self._broker = broker
        self._redis = redis
        self._rng = rng
        self._stop = threading.Event()
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._run, name="faults", daemon=True)
        self._started = 0.0
        self.broker_stalls = 0
        self.broker_stalled_s = 0.0
        self.redis_restarts = 0
        self.redis_restart_s: list[float] = []
        self.stale_restores = 0
        self.snapshot_ages_s: list[float] = []
        self.redis_flushes = 0
        self.skipped = 0
        self.error: BaseException | None = None
        self._last: tuple[Fault, float] | None = None
        #: (fault, began, ended) in seconds since the scheduler started
        self.timeline: list[tuple[str, float, float]] = []

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
                if self._stop.is_set() or time.monotonic() - self._started > self._deadline_s:
                    self.skipped = len(self._timeline) - n
                    return
                began = time.monotonic() - self._started
                self._inject(fault)
                self._last = (fault, time.monotonic())
                self.timeline.append(
                    (fault.value, round(began, 3), round(time.monotonic() - self._started, 3))
                )
        except BaseException as exc:  # surfaced by the suite: a harness error fails the run
            self.error = exc
            log.exception("fault scheduler failed")
        finally:
            self._finished.set()

    @property
    def finished(self) -> bool:
        """Every planned fault was injected (or skipped, or the scheduler failed)."""
        return self._finished.is_set()

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
        elif fault is Fault.RESTART_REDIS:
            began = time.monotonic()
            self._redis.restart()
            self.redis_restart_s.append(time.monotonic() - began)
            self.redis_restarts += 1
        elif fault is Fault.RESTORE_STALE_SNAPSHOT:
            self._restore_stale_snapshot()
        else:
            with redis.Redis.from_url(self._redis.url, socket_timeout=10) as client:
                client.flushall()  # our private server: a flushed or replaced instance
            self.redis_flushes += 1

    def last_fault(self) -> tuple[Fault, float] | None:
        """The last fault injected and when it ended (``time.monotonic()``)."""
        return self._last

    def _restore_stale_snapshot(self) -> None:
        data_dir = self._redis.data_dir
        if data_dir is None:
            raise RuntimeError("a stale-snapshot restore needs Redis with a data directory")
        with redis.Redis.from_url(self._redis.url, socket_timeout=30) as client:
            client.save()  # the snapshot; everything after it will be lost
        saved = time.monotonic()
        self._stop.wait(self._rng.uniform(*self._plan.snapshot_age_s))
        self._redis.stop()  # then a crash: the AOF written since is thrown away with it
        shutil.rmtree(data_dir / "appendonlydir", ignore_errors=True)
        # An AOF-enabled server ignores dump.rdb, so load the snapshot without AOF, turn
        # AOF on (it is rewritten from the restored data) and restart the rig's server.
        # (on another port: nobody writes to the loader, whose AOF becomes the dataset)
        loader = RedisServerProcess(data_dir=data_dir, snapshots=True)
        loader.start()
        try:
            with redis.Redis.from_url(loader.url, socket_timeout=30) as client:
                client.config_set("appendonly", "yes")
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    info = client.info("persistence")
                    rewriting = info.get("aof_rewrite_in_progress") or info.get(
                        "aof_rewrite_scheduled"
                    )
                    if info.get("aof_enabled") and not rewriting:
                        break
                    time.sleep(0.02)
        finally:
            loader.stop()
        self._redis.start()
        self.snapshot_ages_s.append(time.monotonic() - saved)
        self.stale_restores += 1

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
            stale_restores=self.stale_restores,
            stale_snapshot_age_s_max=round(max(self.snapshot_ages_s), 2)
            if self.snapshot_ages_s
            else None,
            redis_flushes=self.redis_flushes,
            faults_skipped=self.skipped,
        )
