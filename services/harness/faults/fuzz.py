"""``cachecoh check fuzz``: malformed events interleaved with valid ones, through the real
broker to one real worker. Promise 3: every malformed record is dead-lettered with a
reason, every valid one is applied, and the worker never restarts.

Records come from the hypothesis strategies in ``malformed_events`` (generation only, no
shrinking: the figure is about the worker, and each failing record is reported as is).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from kafka import KafkaConsumer, TopicPartition
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from sqlalchemy import func, select

from services.adapters.sql.schema import AuditRow
from services.coherence.process import WorkerProcess
from services.harness.faults.malformed_events import (
    FuzzRecord,
    draw_examples,
    malformed_records,
    valid_records,
)
from services.harness.faults.rig import Rig, RigConfig, start_rig

#: faust logs this when an agent raised; its supervisor restarts the agent in-process.
AGENT_CRASH_LINE = "Crashed reason="


@dataclass(frozen=True, slots=True)
class FuzzConfig:
    malformed: int = 10_000
    valid: int = 1_000
    seed: int = 7
    include_known_bugs: bool = False
    rig: RigConfig = field(default_factory=lambda: RigConfig(redis_aof=False))
    settle_timeout_s: float = 180.0


@dataclass(frozen=True, slots=True)
class DeadLetter:
    reason: str
    value: bytes


@dataclass(frozen=True, slots=True)
class FuzzReport:
    passed: bool
    malformed_published: int
    malformed_dead_lettered: int  # with a non-empty reason header
    malformed_dlq_percent: float
    valid_published: int
    valid_applied: int
    worker_restarts: int  # process restarts (the worker is started once)
    agent_crashes: int  # in-process agent restarts after an exception escaped
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def generate_records(config: FuzzConfig) -> list[FuzzRecord]:
    """Malformed and valid records, shuffled together; valid ids made unique."""
    malformed = draw_examples(
        malformed_records(include_known_bugs=config.include_known_bugs),
        config.malformed,
        config.seed,
    )
    valid = draw_examples(
        valid_records(include_known_bugs=config.include_known_bugs), config.valid, config.seed + 1
    )
    records = malformed + [r.with_unique_id(n) for n, r in enumerate(valid)]
    random.Random(config.seed).shuffle(records)  # noqa: S311 - reproducible interleaving
    return records


def run_fuzz(config: FuzzConfig, console: Console | None = None) -> FuzzReport:
    console = console or Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
    )
    with progress:
        drawing = progress.add_task("drawing records (hypothesis)", total=None)
        records = generate_records(config)
        progress.update(drawing, total=len(records), completed=len(records))
        with start_rig(config.rig) as rig:
            worker = rig.new_worker("fuzz-worker").start()
            joining = progress.add_task("worker joining the consumer group", total=None)
            worker.wait_ready()
            progress.update(joining, total=1, completed=1)
            pid = worker.pid
            placed = _publish(rig, records, progress)
            settled = _wait_consumed(rig, worker, len(placed), config.settle_timeout_s, progress)
            letters = _dead_letters(rig, expected=sum(not r.valid for r in records))
            applied = _applied_ids(rig)
            metrics = _event_metrics(worker)
            alive = worker.running and worker.pid == pid
            crashes = _agent_crashes(rig)
            worker.stop()
    return _report(placed, letters, applied, metrics, alive, crashes, settled, config)


def _publish(
    rig: Rig, records: list[FuzzRecord], progress: Progress
) -> list[tuple[FuzzRecord, int, int]]:
    task = progress.add_task("publishing", total=len(records))
    placed = []
    with rig.publisher() as publisher:
        for n, record in enumerate(records):
            landed = publisher.publish_raw(record.key, record.value)
            placed.append((record, landed.partition, landed.offset))
            if n % 100 == 0:
                progress.update(task, completed=n)
    progress.update(task, completed=len(records))
    return placed


def _audit_rows(rig: Rig) -> int:
    with rig.engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count()).select_from(AuditRow).where(AuditRow.topic == rig.topic)
            ).scalar_one()
        )


def _wait_consumed(
    rig: Rig, worker: WorkerProcess, records: int, timeout_s: float, progress: Progress
) -> bool:
    """Every record has an audit row (applied or dead-lettered), or time is up."""
    task = progress.add_task("waiting for the audit", total=records)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and worker.running:
        done = _audit_rows(rig)
        progress.update(task, completed=done)
        if done >= records:
            return True
        time.sleep(0.5)
    return False


def _dead_letters(rig: Rig, expected: int) -> dict[tuple[int, int], DeadLetter]:
    """The DLQ, keyed by the source record's (partition, offset)."""
    consumer = KafkaConsumer(bootstrap_servers=rig.bootstrap, enable_auto_commit=False)
    out: dict[tuple[int, int], DeadLetter] = {}
    try:
        parts = [TopicPartition(rig.dlq_topic, p) for p in range(rig.config.partitions)]
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        idle_until = time.monotonic() + 10
        while len(out) < expected and time.monotonic() < idle_until:
            for batch in consumer.poll(timeout_ms=500).values():
                idle_until = time.monotonic() + 10
                for letter in batch:
                    headers = {k: v.decode("utf-8", "replace") for k, v in letter.headers}
                    source = (int(headers["source_partition"]), int(headers["source_offset"]))
                    out[source] = DeadLetter(headers.get("reason", ""), bytes(letter.value or b""))
    finally:
        consumer.close()
    return out


def _applied_ids(rig: Rig) -> set[str]:
    with rig.engine.connect() as conn:
        rows = conn.execute(
            select(AuditRow.event_id).where(
                AuditRow.topic == rig.topic, AuditRow.outcome == "applied"
            )
        )
        return {r[0] for r in rows}


def _event_metrics(worker: WorkerProcess) -> dict[str, float]:
    out = {}
    for outcome in ("applied", "duplicate", "dead_lettered"):
        value = worker.metric(f'cachecoh_coherence_events_total{{outcome="{outcome}"}}')
        out[outcome] = value or 0.0
    return out


def _agent_crashes(rig: Rig) -> int:
    log = rig.work_dir / "fuzz-worker.log"
    if not log.exists():
        return 0
    return log.read_text(encoding="utf-8", errors="replace").count(AGENT_CRASH_LINE)


def _report(
    placed: list[tuple[FuzzRecord, int, int]],
    letters: dict[tuple[int, int], DeadLetter],
    applied: set[str],
    metrics: dict[str, float],
    alive: bool,
    crashes: int,
    settled: bool,
    config: FuzzConfig,
) -> FuzzReport:
    by_kind: dict[str, Counter[str]] = {}
    failures: list[dict[str, Any]] = []
    malformed = lettered = mismatched = wrong_bytes = valid = valid_applied = 0
    for record, partition, offset in placed:
        counts = by_kind.setdefault(record.kind, Counter())
        counts["published"] += 1
        letter = letters.get((partition, offset))
        if record.valid:
            valid += 1
            if record.event_id in applied:
                valid_applied += 1
                counts["applied"] += 1
            elif len(failures) < 10:
                failures.append(_failure(record, "valid event not applied", letter))
            continue
        malformed += 1
        if letter is None or not letter.reason:
            if len(failures) < 10:
                failures.append(_failure(record, "not dead-lettered", None))
            continue
        lettered += 1
        counts[f"dlq:{letter.reason}"] += 1
        if record.expected_reason is not None and letter.reason != record.expected_reason.value:
            mismatched += 1
        if letter.value != record.value:
            wrong_bytes += 1
    passed = (
        settled
        and alive
        and crashes == 0
        and lettered == malformed
        and mismatched == 0
        and wrong_bytes == 0
        and valid_applied == valid
    )
    return FuzzReport(
        passed=passed,
        malformed_published=malformed,
        malformed_dead_lettered=lettered,
        malformed_dlq_percent=round(100.0 * lettered / malformed, 3) if malformed else 100.0,
        valid_published=valid,
        valid_applied=valid_applied,
        worker_restarts=0 if alive else 1,
        agent_crashes=crashes,
        details={
            "seed": config.seed,
            "include_known_bugs": config.include_known_bugs,
            "all_records_consumed": settled,
            "reason_mismatches": mismatched,
            "dlq_bytes_differ": wrong_bytes,
            "worker_events_total": metrics,
            "by_kind": {kind: dict(sorted(c.items())) for kind, c in sorted(by_kind.items())},
            "failures": failures,
        },
    )


def _failure(record: FuzzRecord, what: str, letter: DeadLetter | None) -> dict[str, Any]:
    return {
        "what": what,
        "kind": record.kind,
        "expected": record.expected_reason.value if record.expected_reason else "applied",
        "dlq_reason": letter.reason if letter else None,
        "value_head": record.value[:160].decode("utf-8", "replace"),
    }
