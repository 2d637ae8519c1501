"""``cachecoh check faults``: a steady mixed load while faults are injected, then figures.

Composition: the rig (broker, private Redis with AOF, audit database), the real worker
under a supervisor, the offset poller feeding the watermark, the update stream, the
fault scheduler (threads) and the read/fill load (asyncio, this thread). At the end the
audit must hold every published event: ``lost_events`` are broker-acknowledged event ids
it lacks; ``stale_reads`` come from the load's checks.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from services.adapters.redis_tag_store import RedisTagStore, ReplicaKeys, connect_redis
from services.coherence.bootstrap import load_domain_mappings
from services.coherence.settings import CoherenceSettings
from services.harness.faults.ground_truth import AckWatermark, FactKey, FactVersions, PublishedEvent
from services.harness.faults.group_offsets import GroupOffsetPoller
from services.harness.faults.load import LoadShape, ReadLoad, ReadStats
from services.harness.faults.report import AuditSummary, read_audit, wait_for_audit
from services.harness.faults.rig import FAST_REJOIN, Rig, RigConfig, start_rig
from services.harness.faults.schedule import (
    FaultCounts,
    FaultPlan,
    FaultScheduler,
    WorkerSupervisor,
)
from services.harness.faults.updates import UpdateShape, UpdateStream


def default_plan(duration_s: float) -> FaultPlan:
    """About one worker kill per 11 s (a restarted worker needs ~5 s to own partitions
    again), a broker stall per minute, a Redis restart per 75 s, a restore from a stale
    snapshot and a flush per 15 s each; at least one of each."""
    return FaultPlan(
        worker_kills=max(1, int(duration_s / 11)),
        broker_stalls=max(1, int(duration_s / 60)),
        redis_restarts=max(1, int(duration_s / 75)),
        stale_restores=max(1, int(duration_s / 15)),
        redis_flushes=max(1, int(duration_s / 15)),
    )


@dataclass(frozen=True, slots=True)
class FaultSuiteConfig:
    #: The run lasts at least this long, and beyond it until every planned fault has been
    #: injected and ``min_reads`` reads were checked, by at most ``max_overrun_s``: on a
    #: loaded machine worker rejoins are slower and a fixed length would cut the plan short.
    duration_s: float = 600.0
    min_reads: int = 0
    max_overrun_s: float = 120.0
    plan: FaultPlan | None = None  # default: ``default_plan(duration_s)``
    products: int = 24
    slots: int = 6
    updates: UpdateShape = field(default_factory=UpdateShape)
    load: LoadShape = field(default_factory=LoadShape)
    rig: RigConfig = field(default_factory=RigConfig)
    seed: int = 7
    drain_timeout_s: float = 180.0
    worker_settings: Mapping[str, str] = field(default_factory=dict)  # CACHECOH_* overrides
    #: Reads go through the replica guard, as a gateway's do; off only to prove the
    #: suite sees what the guard prevents.
    replica_guard: bool = True


@dataclass(frozen=True, slots=True)
class FaultReport:
    passed: bool
    events_published: int
    events_applied: int
    lost_events: int
    stale_reads: int
    reads_checked: int
    reads_per_s: float
    max_invalidation_lag_ms: float | None
    worker_kills: int
    broker_stalls: int
    redis_restarts: int
    stale_snapshot_restores: int
    redis_flushes: int
    same_id_other_source_events: int
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def fact_keys(products: int, slots: int) -> list[FactKey]:
    """Synthetic products × spec fields that map to exactly their own slot, so one
    event changes exactly one fact (checked against the shipped mapping files)."""
    mappings = load_domain_mappings(CoherenceSettings())
    own_slot = sorted(
        name
        for name, rule in mappings.product_rules.items()
        if rule.semantic_slots == (name,) and not rule.intent_tags
    )
    if len(own_slot) < slots:
        raise ValueError(f"only {len(own_slot)} fields map to their own slot, {slots} wanted")
    return [FactKey(f"flt-{p:02d}", slot) for p in range(products) for slot in own_slot[:slots]]


def run_fault_suite(config: FaultSuiteConfig, console: Console | None = None) -> FaultReport:
    console = console or Console(stderr=True)
    plan = config.plan or default_plan(config.duration_s)
    rng = random.Random(config.seed)  # noqa: S311 - a reproducible workload
    keys = fact_keys(config.products, config.slots)
    facts = FactVersions(keys)
    watermark = AckWatermark()
    with start_rig(config.rig) as rig, _progress(console) as progress, ExitStack() as cleanup:
        workers = WorkerSupervisor(lambda name: rig.new_worker(name, **config.worker_settings))
        cleanup.callback(workers.stop)
        joining = progress.add_task("worker joining the consumer group", total=None)
        first_join_s = workers.start()
        progress.update(joining, total=1, completed=1)
        poller = GroupOffsetPoller(rig.bootstrap, rig.group, rig.topic, watermark.advance)
        publisher = rig.publisher()
        cleanup.callback(publisher.close)
        updates = UpdateStream(
            publisher,
            facts,
            watermark,
            keys,
            config.updates,
            random.Random(rng.random()),  # noqa: S311
        )
        scheduler = FaultScheduler(
            plan,
            config.duration_s,
            workers,
            rig.broker,
            rig.redis,
            random.Random(rng.random()),  # noqa: S311
            overrun_s=config.max_overrun_s,
        )
        poller.start()
        cleanup.callback(poller.stop)
        try:
            updates.start()
            scheduler.start()
            stats, load_s = asyncio.run(
                _run_load(rig, facts, watermark, keys, config, rng, progress, scheduler, updates)
            )
        finally:
            scheduler.stop()
            updates.stop()
        if scheduler.error is not None:
            raise RuntimeError("the fault scheduler failed") from scheduler.error
        draining = progress.add_task("waiting for the audit", total=len(updates.published))
        workers.ensure_running()
        audit = wait_for_audit(
            rig.engine, rig.topic, updates.published.keys(), config.drain_timeout_s
        )
        progress.update(draining, completed=len(audit.applied_ids & updates.published.keys()))
        _wait_acknowledged(watermark, timeout_s=30)
        poller.stop()
        publisher.close()
        workers.stop()
        audit = read_audit(rig.engine, rig.topic)
        committed = dict(poller.committed)
        report = _report(
            config,
            plan,
            stats,
            load_s,
            first_join_s,
            updates,
            scheduler.counts(),
            watermark,
            audit,
            committed,
            rig,
            scheduler.timeline,
        )
        if not report.passed:
            rig.keep_work_dir = True  # the worker and broker logs explain a failure
        return report


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


async def _run_load(
    rig: Rig,
    facts: FactVersions,
    watermark: AckWatermark,
    keys: Sequence[FactKey],
    config: FaultSuiteConfig,
    rng: random.Random,
    progress: Progress,
    scheduler: FaultScheduler,
    updates: UpdateStream,
) -> tuple[ReadStats, float]:
    client = connect_redis(rig.redis.url, cluster=False)
    # Reads go through the lookup a gateway makes, replica guard included.
    replica = ReplicaKeys(rig.keys.prefix) if config.replica_guard else None
    store = RedisTagStore(client, rig.keys, replica=replica)
    load = ReadLoad(
        store,
        facts,
        watermark,
        keys,
        config.load,
        random.Random(rng.random()),  # noqa: S311
        last_fault=scheduler.last_fault,
    )
    task = progress.add_task("faults", total=config.duration_s)
    began = time.monotonic()
    until = began + config.duration_s
    deadline = until + config.max_overrun_s

    def done() -> bool:
        now = time.monotonic()
        if now >= deadline:
            return True
        return now >= until and scheduler.finished and load.stats.reads_checked >= config.min_reads

    async def report_progress() -> None:
        while True:
            s, f, a = load.stats, scheduler.counts(), watermark.progress()
            progress.update(
                task,
                completed=min(config.duration_s, time.monotonic() - began),
                description=(
                    f"reads {s.reads_checked:,} stale {s.stale_reads} errors {s.read_errors} | "
                    f"events {a.published:,} acked {a.acknowledged:,} | kills {f.worker_kills} "
                    f"stalls {f.broker_stalls} redis {f.redis_restarts} "
                    f"stale-snapshots {f.stale_restores} flushes {f.redis_flushes}"
                ),
            )
            await asyncio.sleep(0.5)

    reporter = asyncio.create_task(report_progress())
    try:
        await load.run(done)
    finally:
        reporter.cancel()
        await client.aclose()
    progress.update(task, completed=config.duration_s)
    return load.stats, time.monotonic() - began


def _wait_acknowledged(watermark: AckWatermark, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        progress = watermark.progress()
        if progress.acknowledged >= progress.published:
            return
        time.sleep(0.2)


def _report(
    config: FaultSuiteConfig,
    plan: FaultPlan,
    stats: ReadStats,
    load_s: float,
    first_join_s: float,
    updates: UpdateStream,
    faults: FaultCounts,
    watermark: AckWatermark,
    audit: AuditSummary,
    committed: Mapping[int, int],
    rig: Rig,
    timeline: Sequence[tuple[str, float, float]] = (),
) -> FaultReport:
    applied_ids = audit.applied_ids
    published = updates.published
    lost = sorted(set(published) - applied_ids)
    acks = watermark.progress()
    counts = updates.counts()
    passed = (
        not lost
        and stats.stale_reads == 0
        and stats.wrong_answers == 0
        and faults.worker_unexpected_exits == 0
    )
    return FaultReport(
        passed=passed,
        events_published=len(published),
        events_applied=len(set(published) & applied_ids),
        lost_events=len(lost),
        stale_reads=stats.stale_reads,
        reads_checked=stats.reads_checked,
        reads_per_s=round(stats.reads_checked / load_s, 1) if load_s else 0.0,
        max_invalidation_lag_ms=audit.lag_ms_max,
        worker_kills=faults.worker_kills,
        broker_stalls=faults.broker_stalls,
        redis_restarts=faults.redis_restarts,
        stale_snapshot_restores=faults.stale_restores,
        redis_flushes=faults.redis_flushes,
        same_id_other_source_events=counts.same_id_other_source,
        details={
            "duration_s": config.duration_s,
            "ran_s": round(load_s, 1),
            "min_reads": config.min_reads,
            "seed": config.seed,
            "lost_event_ids": lost[:10],
            "events": {
                **asdict(counts),
                "records_acknowledged": acks.acknowledged,
                "records_published": acks.published,
                "max_ack_lag_ms": round(acks.max_ack_lag_s * 1000, 1),
                "audit_outcomes": audit.outcomes,
                "invalidation_lag_ms_p50": audit.lag_ms_p50,
                "invalidation_lag_ms_p99": audit.lag_ms_p99,
                "invalidation_lag_ms_max": audit.lag_ms_max,
            },
            "reads": stats.as_dict(),
            "faults": {**asdict(faults), "first_join_s": round(first_join_s, 2)},
            "fault_timeline": timeline,
            "plan": asdict(plan),
            "shape": {
                "facts": config.products * config.slots,
                "updates": asdict(config.updates),
                "load": asdict(config.load),
            },
            "partitions": _partitions(published.values(), committed, lost),
            "worker_settings": {**FAST_REJOIN, **config.worker_settings},
            "work_dir": str(rig.work_dir) if config.rig.keep_work_dir or not passed else None,
        },
    )


def _partitions(
    published: Iterable[PublishedEvent], committed: Mapping[int, int], lost: Sequence[str]
) -> dict[int, dict[str, int]]:
    """Per partition: distinct events published, the highest offset of one, the group's
    committed offset (past duplicates too) and the lost events: a stuck partition shows."""
    lost_ids = set(lost)
    out: dict[int, dict[str, int]] = {}
    for event in published:
        row = out.setdefault(
            event.partition,
            {
                "events": 0,
                "highest_event_offset": -1,
                "committed": committed.get(event.partition, 0),
                "lost": 0,
            },
        )
        row["events"] += 1
        row["highest_event_offset"] = max(row["highest_event_offset"], event.offset)
        row["lost"] += event.event_id in lost_ids
    return dict(sorted(out.items()))
