"""``cachecoh bench coherence``: invalidation lag and cost at N cached answers.

1. A private ``redis-server`` (clean keyspace, so sizes are exactly what we put in) gets
   N answers through the guarded-fill script, spread over the catalog's products and
   slots, and, in another database of the same server, the same N answers keyed the
   seed's way (``<product>_<slot>_<n>``, purged by SCAN pattern).
2. The real worker (``cachecoh worker coherence`` as a child process) consumes from an
   embedded broker; M events are published at R/s through the real publisher.
3. Lag per event = event ``time`` (set just before send) → bump acknowledged, read from
   the worker's audit log. Also timed: one tag bump vs one SCAN-pattern purge that
   invalidate the same answers (iPhone 15 battery life) at N.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import redis.asyncio as aioredis
from aiokafka import AIOKafkaConsumer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from services.adapters.catalog_files import load_catalog
from services.adapters.embedded_broker import EmbeddedBroker
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.redis_tag_store import LookupStatus, RedisTagStore
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.coherence.process import WorkerProcess
from services.core.events import ProductSpecUpdated, new_event
from services.core.keys import KeySpace, Layer
from services.core.mapping import ProductBump
from services.core.tags import answer_tags
from services.paths import DEMO_DATA_DIR
from services.percentiles import nearest_rank

TOPIC = "bench-spec-updated"
PARTITIONS = 6
SEED_DB = 1  # the seed-style keyspace lives in its own database of the same server


@dataclass(frozen=True)
class CoherenceBenchConfig:
    entries: int = 100_000
    events: int = 5_000
    rate: float = 1_000.0
    seed: int = 7
    redis_url: str | None = None  # default: a private redis-server
    rounds: int = 1  # each round: [baseline worker,] worker, floor
    fetch_max_wait_ms: int = 5  # the worker's default; the floor consumer uses the same
    baseline_tree: Path | None = None  # a checkout whose worker runs as "baseline"
    kafka_bootstrap: str | None = None  # default: an embedded broker (Tansu)


def _histogram_quantile(text: str, name: str, q: float) -> float | None:
    """Like PromQL's histogram_quantile over one histogram in a /metrics text."""
    buckets: list[tuple[float, float]] = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == f"{name}_bucket":
                buckets.append((float(sample.labels["le"]), sample.value))
    buckets.sort()
    if not buckets or buckets[-1][1] == 0:
        return None
    rank = q * buckets[-1][1]
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return lower_bound
            share = (rank - lower_count) / (count - lower_count) if count > lower_count else 0
            return lower_bound + (bound - lower_bound) * share
        lower_bound, lower_count = bound, count
    return None


def _answer_classes() -> list[tuple[str, str, tuple[str, ...]]]:
    """(product, slot, constraint values) for every spec the catalog has."""
    catalog = load_catalog(DEMO_DATA_DIR).products
    classes: list[tuple[str, str, tuple[str, ...]]] = []
    for product in catalog:
        for slot, spec in product.specs.items():
            classes.append((product.product_id, slot, ()))
            if isinstance(spec, dict) or hasattr(spec, "get"):
                for variant in spec.get("values", {}) if "by" in spec else ():
                    classes.append((product.product_id, slot, (variant,)))
    return classes


async def _fill(
    client: aioredis.Redis,
    seed_client: aioredis.Redis,
    keys: KeySpace,
    entries: int,
    progress: Progress,
) -> list[tuple[str, str, tuple[str, ...]]]:
    """Fill N answers (guarded-fill script, pipelined) and N seed-style keys."""
    store = RedisTagStore(client, keys)
    classes = _answer_classes()
    snapshots = {}
    for product, slot, variants in classes:
        fields = [t.field for t in answer_tags(product, "query_spec", [slot], variants)]
        snapshots[(product, slot, variants)] = await store.snapshot(product, fields)
    task = progress.add_task("filling answers", total=entries)
    assigned: list[tuple[str, str, tuple[str, ...]]] = []
    chunk = 2_000
    body = b'{"answer":"' + b"x" * 160 + b'"}'
    for start in range(0, entries, chunk):
        batch = []
        seed_pipe = seed_client.pipeline(transaction=False)
        for i in range(start, min(entries, start + chunk)):
            cls = classes[i % len(classes)]
            assigned.append(cls)
            batch.append((Layer.SEMANTIC, f"{i:012x}", snapshots[cls], body))
            seed_pipe.set(f"{cls[0]}_{cls[1]}_{i}", body, px=3_600_000)
        if not all(await store.fill_many(batch, ttl_ms=3_600_000)):
            raise RuntimeError("a fill was refused during setup")
        await seed_pipe.execute()
        progress.update(task, advance=len(batch))
    return assigned


def _publish(
    events: list[ProductSpecUpdated],
    rate: float,
    bootstrap: str,
    progress: Progress,
    phase: str,
    topic: str,
) -> float:
    task = progress.add_task(f"{phase}: publishing at {rate:.0f}/s", total=len(events))
    with SpecUpdatePublisher(bootstrap, topic=topic) as publisher:
        producer = publisher._producer
        started = time.perf_counter()
        futures = []
        for n, template in enumerate(events):
            delay = started + n / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)  # one sleep per event: pacing must not eat the CPU
            event = new_event(
                template.product_id,
                template.changed_fields,
                template.spec_version,
                source="bench",
                event_id=template.event_id,
            )  # the lag clock starts now, right before send
            futures.append(producer.send(topic, key=event.kafka_key, value=event.to_bytes()))
            if n % 200 == 0:
                progress.update(task, completed=n)
        for f in futures:
            f.get(timeout=30)
        progress.update(task, completed=len(events))
        return time.perf_counter() - started


def _events(count: int, rng: random.Random) -> list[ProductSpecUpdated]:
    classes = _answer_classes()
    versions: dict[str, int] = {}
    out = []
    for _ in range(count):
        product, slot, variants = rng.choice(classes)
        versions[product] = versions.get(product, 1) + 1
        path = f"{slot}.{variants[0]}" if variants else slot
        out.append(new_event(product, [path], versions[product], source="bench"))
    return out


async def _compare_purges(
    client: aioredis.Redis, keys: KeySpace, assigned: list[tuple[str, str, tuple[str, ...]]]
) -> dict[str, Any]:
    """One tag bump vs one SCAN-pattern purge, invalidating iPhone 15 battery answers."""
    store = RedisTagStore(client, keys)
    affected = [i for i, c in enumerate(assigned) if c[0] == "iphone_15" and c[1] == "battery_life"]
    assert affected, "no iPhone 15 battery answers were filled"
    # Warm the script cache and the connection first: the seed's SCAN loop gets no cold
    # start either.
    await store.bump(ProductBump("iphone_15", ("s:weight",)), event_id="warm-up", spec_version=1)
    started = time.perf_counter()
    await store.bump(
        ProductBump("iphone_15", ("s:battery_life",)), event_id="bench-purge", spec_version=10**6
    )
    tag_bump_ms = (time.perf_counter() - started) * 1000
    # One call is noisy at this scale; the median of 21 more bumps (other products'
    # slots, each a real invalidation) is the steadier figure.
    repeated = []
    for product, slot, _ in sorted({(c[0], c[1], ()) for c in assigned})[:21]:
        started = time.perf_counter()
        await store.bump(
            ProductBump(product, (f"s:{slot}",)), event_id=f"r-{product}-{slot}", spec_version=1
        )
        repeated.append((time.perf_counter() - started) * 1000)
    sample = affected[:: max(1, len(affected) // 50)]
    still_served = 0
    for i in sample:
        look = await store.lookup("iphone_15", Layer.SEMANTIC, f"{i:012x}")
        still_served += look.status is LookupStatus.HIT
    kwargs = client.connection_pool.connection_kwargs
    sync = redis.Redis(host=kwargs["host"], port=kwargs["port"], db=SEED_DB)
    try:
        started = time.perf_counter()
        deleted = 0
        batch: list[bytes] = []
        for key in sync.scan_iter(match="iphone_15_battery_life_*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                deleted += sync.unlink(*batch)
                batch.clear()
        if batch:
            deleted += sync.unlink(*batch)
        scan_purge_ms = (time.perf_counter() - started) * 1000
        seed_keys = int(sync.dbsize())
    finally:
        sync.close()
    return {
        "tag_bump_ms": round(tag_bump_ms, 3),
        "tag_bump_ms_median_of_21": round(statistics.median(repeated), 3),
        "scan_purge_ms": round(scan_purge_ms, 1),
        "scan_over_tag_ratio": round(scan_purge_ms / tag_bump_ms, 1),
        "answers_invalidated": len(affected),
        "sampled_still_served_after_bump": still_served,
        "scan_purge_deleted": deleted,
        "seed_keyspace_after_purge": seed_keys,
    }


async def _dbsize(client: aioredis.Redis) -> int:
    return int(await client.dbsize())


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def _phase_topic(rig: _Rig, index: int) -> str:
    """A fresh topic per phase: Tansu's fetches slow as a partition's batches pile up,
    so phases sharing one topic would favour whichever ran first."""
    topic = f"{TOPIC}-{index}"
    ensure_topics(rig.bootstrap, [(topic, PARTITIONS), (topic + ".dlq", PARTITIONS)])
    return topic


def _start_worker_group(bootstrap: str, group: str, topic: str) -> None:
    """Commit the end of every partition for a new consumer group, so a worker phase
    applies only the events published for it."""

    async def commit_end() -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            assigned = [TopicPartition(topic, p) for p in range(PARTITIONS)]
            consumer.assign(assigned)
            await consumer.seek_to_end(*assigned)
            await consumer.commit({tp: await consumer.position(tp) for tp in assigned})
        finally:
            await consumer.stop()

    asyncio.run(commit_end())


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``: the bench also runs in
    the runtime image, which has no psutil)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _lag_summary(lags: list[float]) -> dict[str, float | None]:
    lags = sorted(lags)
    return {
        "lag_ms_p50": _round(nearest_rank(lags, 0.50)),
        "lag_ms_p90": _round(nearest_rank(lags, 0.90)),
        "lag_ms_p99": _round(nearest_rank(lags, 0.99)),
        "lag_ms_max": round(lags[-1], 3) if lags else None,
    }


@dataclass
class _Rig:
    """What every phase shares: the broker, Redis, the audit database, the progress bar."""

    config: CoherenceBenchConfig
    bootstrap: str
    redis_url: str
    db_url: str
    workdir: Path
    prefix: str
    progress: Progress
    rng: random.Random


def _worker_phase(rig: _Rig, name: str, index: int, source_tree: Path | None) -> dict[str, Any]:
    """One worker phase: a fresh consumer group and key prefix (no replica record to
    repair), ready before publishing; CPU is the worker process's from ready to the last
    event audited."""
    group = f"bench-{rig.prefix}-{index}"
    topic = _phase_topic(rig, index)
    _start_worker_group(rig.bootstrap, group, topic)
    worker = WorkerProcess(
        {
            "CACHECOH_KAFKA_BOOTSTRAP": rig.bootstrap,
            "CACHECOH_TOPIC": topic,
            "CACHECOH_DLQ_TOPIC": topic + ".dlq",
            "CACHECOH_TOPIC_PARTITIONS": str(PARTITIONS),
            "CACHECOH_CONSUMER_GROUP": group,
            "CACHECOH_REDIS_URL": rig.redis_url,
            "CACHECOH_REDIS_PREFIX": f"{rig.prefix}-{index}",
            "CACHECOH_DATABASE_URL": rig.db_url,
            "CACHECOH_LOG_LEVEL": "WARNING",
            "CACHECOH_SEED_SPEC_STORE": "true",
            "CACHECOH_FETCH_MAX_WAIT_MS": str(rig.config.fetch_max_wait_ms),
        },
        log_file=rig.workdir / f"worker-{index}.log",
        source_tree=source_tree,
    ).start()
    try:
        ready = rig.progress.add_task(f"{name}: worker joining the group", total=None)
        worker.wait_ready()
        rig.progress.update(ready, total=1, completed=1)
        time.sleep(1.0)  # let the first replica check and fetches settle
        events = _events(rig.config.events, rig.rng)
        cpu_started = _cpu_seconds(worker.pid)
        publish_s = _publish(events, rig.config.rate, rig.bootstrap, rig.progress, name, topic)
        audit = AuditLog(make_engine(rig.db_url))
        wanted = [e.event_id for e in events]
        waiting = rig.progress.add_task(f"{name}: waiting for the audit", total=len(wanted))
        deadline = time.monotonic() + 120
        applied: set[str] = set()
        while time.monotonic() < deadline:
            applied = audit.applied_event_ids() & set(wanted)
            rig.progress.update(waiting, completed=len(applied))
            if len(applied) == len(wanted):
                break
            time.sleep(0.1)
        cpu_s = _cpu_seconds(worker.pid) - cpu_started
        lags = audit.lags_ms(wanted)
        worker_metrics = worker.metrics_text()
    finally:
        worker.stop()
    return {
        "phase": name,
        "events_applied": len(applied),
        "events_lost": len(wanted) - len(applied),
        "publish_seconds": round(publish_s, 2),
        **_lag_summary(lags),
        "cpu_ms_per_event": round(cpu_s * 1000 / len(wanted), 4),
        # Where the lag goes: producer + broker + fetch (record timestamp → received).
        "broker_delay_ms_p50": _ms(
            _histogram_quantile(worker_metrics, "cachecoh_coherence_broker_delay_seconds", 0.5)
        ),
        "broker_delay_ms_p99": _ms(
            _histogram_quantile(worker_metrics, "cachecoh_coherence_broker_delay_seconds", 0.99)
        ),
        # The worker's own part (received → bump acknowledged).
        "processing_ms_p50": _ms(
            _histogram_quantile(worker_metrics, "cachecoh_coherence_processing_seconds", 0.5)
        ),
        "processing_ms_p99": _ms(
            _histogram_quantile(worker_metrics, "cachecoh_coherence_processing_seconds", 0.99)
        ),
    }


def _floor_phase(rig: _Rig, index: int) -> dict[str, Any]:
    """The broker's floor: ``broker_floor`` as a child process, same topic and producer."""
    out = rig.workdir / f"floor-{index}.json"
    topic = _phase_topic(rig, index)
    child = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
        [
            sys.executable,
            "-m",
            "services.harness.benchmarks.broker_floor",
            "--bootstrap",
            rig.bootstrap,
            "--topic",
            topic,
            "--partitions",
            str(PARTITIONS),
            "--redis-url",
            rig.redis_url,
            "--counter-key",
            f"{rig.prefix}:floor",
            "--count",
            str(rig.config.events),
            "--fetch-max-wait-ms",
            str(rig.config.fetch_max_wait_ms),
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        if child.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"the floor consumer did not start (exit {child.wait()})")
        events = _events(rig.config.events, rig.rng)
        publish_s = _publish(events, rig.config.rate, rig.bootstrap, rig.progress, "floor", topic)
        child.wait(timeout=150)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    report = json.loads(out.read_text())
    lags = [float(x) for x in report["lags_ms"]]
    return {
        "phase": "floor",
        "events_applied": len(lags),
        "events_lost": rig.config.events - len(lags),
        "publish_seconds": round(publish_s, 2),
        **_lag_summary(lags),
        "cpu_ms_per_event": round(float(report["cpu_seconds"]) * 1000 / rig.config.events, 4),
    }


def _ratio(value: float | None, floor: float | None) -> float | None:
    return None if value is None or not floor else round(value / floor, 2)


def _summary(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind: medians over rounds, and lag / floor against the floor of the same
    round (one floor phase per round)."""
    floors = [p for p in phases if p["phase"] == "floor"]
    out: dict[str, Any] = {}
    for name in dict.fromkeys(p["phase"] for p in phases):
        mine = [p for p in phases if p["phase"] == name]
        row: dict[str, Any] = {}
        for key in ("lag_ms_p50", "lag_ms_p99", "cpu_ms_per_event"):
            values = [p[key] for p in mine if p[key] is not None]
            row[key] = round(statistics.median(values), 3) if values else None
        if name != "floor":
            for q in ("p50", "p99"):
                ratios = [
                    _ratio(w[f"lag_ms_{q}"], f[f"lag_ms_{q}"])
                    for w, f in zip(mine, floors, strict=False)
                ]
                known = [r for r in ratios if r is not None]
                row[f"lag_over_floor_{q}"] = round(statistics.median(known), 2) if known else None
        out[name] = row
    return out


def run_coherence_bench(
    config: CoherenceBenchConfig, console: Console | None = None
) -> dict[str, Any]:
    console = console or Console(stderr=True)
    rng = random.Random(config.seed)  # noqa: S311 - a reproducible workload
    workdir = Path(tempfile.mkdtemp(prefix="cachecoh-bench-"))
    db_url = f"sqlite:///{workdir / 'audit.db'}"
    upgrade(db_url)
    private = None if config.redis_url else RedisServerProcess().start()
    redis_url = config.redis_url or (private.url if private else "")
    # The seeded draw keeps a seed's workload as it was; the random part makes the key
    # prefix and the consumer groups new for every run, also on a broker or a Redis that
    # outlives the run (--kafka-bootstrap, --redis-url), where a second run would reuse
    # the first one's groups and replica record.
    keys = KeySpace(f"ccbench-{rng.getrandbits(32):08x}-{uuid.uuid4().hex[:6]}")
    broker = (
        None if config.kafka_bootstrap else EmbeddedBroker(log_file=workdir / "tansu.log").start()
    )
    bootstrap = config.kafka_bootstrap or (broker.bootstrap if broker else "")
    load_before = os.getloadavg()
    try:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        ) as progress:
            client = aioredis.Redis.from_url(redis_url)
            seed_client = aioredis.Redis.from_url(redis_url.rsplit("/", 1)[0] + f"/{SEED_DB}")
            loop = asyncio.new_event_loop()
            try:
                fill_started = time.perf_counter()
                assigned = loop.run_until_complete(
                    _fill(client, seed_client, keys, config.entries, progress)
                )
                fill_s = time.perf_counter() - fill_started
                entries_in_redis = loop.run_until_complete(_dbsize(client))
                rig = _Rig(
                    config, bootstrap, redis_url, db_url, workdir, keys.prefix, progress, rng
                )
                phases: list[dict[str, Any]] = []
                # Alternate, so a change in the machine's load hits every kind alike.
                kinds: list[tuple[str, Path | None]] = [("worker", None)]
                if config.baseline_tree is not None:
                    kinds.insert(0, ("baseline", config.baseline_tree))
                # Every phase has a fresh topic; every other round also runs in reverse
                # order, so no kind always runs first after a broker's warm-up.
                for round_number in range(config.rounds):
                    order: list[tuple[str, Path | None]] = [*kinds, ("floor", None)]
                    for name, tree in order if round_number % 2 == 0 else order[::-1]:
                        if name == "floor":
                            phases.append(_floor_phase(rig, len(phases) + 1))
                        else:
                            phases.append(_worker_phase(rig, name, len(phases) + 1, tree))
                purge = loop.run_until_complete(_compare_purges(client, keys, assigned))
            finally:
                loop.run_until_complete(client.aclose())
                loop.run_until_complete(seed_client.aclose())
                loop.close()
        summary = _summary(phases)
        worker = summary["worker"]
        return {
            "entries": config.entries,
            "entries_in_redis": entries_in_redis,
            "events": config.events,
            "rate_target": config.rate,
            "partitions": PARTITIONS,
            "broker": "external" if config.kafka_bootstrap else "embedded tansu",
            "fetch_max_wait_ms": config.fetch_max_wait_ms,
            "rounds": config.rounds,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "lag_ms_p50": worker["lag_ms_p50"],
            "lag_ms_p99": worker["lag_ms_p99"],
            "floor_lag_ms_p50": summary["floor"]["lag_ms_p50"],
            "floor_lag_ms_p99": summary["floor"]["lag_ms_p99"],
            "lag_over_floor_p50": worker["lag_over_floor_p50"],
            "lag_over_floor_p99": worker["lag_over_floor_p99"],
            "worker_cpu_ms_per_event": worker["cpu_ms_per_event"],
            "events_lost": sum(p["events_lost"] for p in phases),
            "summary": summary,
            "phases": phases,
            "fill_seconds": round(fill_s, 1),
            **purge,
            "targets": {
                "lag_over_floor": 1.3,
                "lag_ms_p99_on_apache_kafka": 10.0,
                "scan_over_tag_ratio": 1000.0,
            },
        }
    finally:
        if broker is not None:
            broker.stop()
        if private is not None:
            private.stop()
