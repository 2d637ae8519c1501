"""``cachecoh check load``: throughput and latency of hit-heavy and miss-heavy mixes, and
proof that the token bucket and the fill breaker keep the upstream within its budget.

The check stack (``services.harness.checks.stack``) runs with a slower engine (misses cost tens of
milliseconds, as a real model's would cost seconds), and each mix runs for a fixed time at
fixed concurrency from this process (the keep-alive client of the gateway benchmark):

- **hot** requests repeat a warmed set of questions (hits);
- **distinct** requests ask a question in a fresh ``X-Cache-Namespace`` (a new key: a
  miss that goes upstream once);
- **refresh** requests send ``Cache-Control: no-cache`` for the hottest few questions,
  a refresh storm that goes upstream every time it is let through. Only the token bucket
  (``bucket_capacity`` calls, refilled at ``bucket_refill_per_s``) and the fill breaker
  (``breaker_misses_per_minute``) stand between it and the engine.

**The bucket bound** is checked on what reached the engine, not on what the gateway says:
the upstream ledger records each call's arrival time and completion id, and every
response names its call by that id, so each key's upstream calls are known. For every
key and every pair of its calls i < j, the calls between them must fit the bucket::

    j - i + 1  <=  capacity + refill_per_s * (t_j - t_i + slack)

``slack`` covers the time between a call taking its token and reaching the ledger; it is
bounded by the gateway's own time minus the upstream time of the slowest miss
(``Server-Timing``), measured in the same run.

Answers the gateway bypassed (``X-Cache: BYPASS``) are the client's own request forwarded,
never a fill, so no question's bucket applies: their calls are counted apart
(``bypass_upstream_calls``, by reason) and kept out of the bound.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from prometheus_client.parser import text_string_to_metric_families

from services.harness.benchmarks.http_client import KeepAliveClient
from services.harness.checks.report import latency_summary, memory_mib
from services.harness.checks.stack import CheckStack, StackConfig, running_stack
from services.harness.checks.upstream_ledger import LedgerLine, answer_origin
from services.paths import DEMO_DATA_DIR

#: Statuses a protected gateway may answer under load: served, rate-limited, breaker.
EXPECTED_STATUSES = frozenset({200, 429, 503})


@dataclass(frozen=True, slots=True)
class LoadMix:
    name: str
    hot_share: float
    distinct_share: float
    refresh_share: float


MIXES = (
    LoadMix("hit_heavy", hot_share=0.94, distinct_share=0.03, refresh_share=0.03),
    LoadMix("miss_heavy", hot_share=0.25, distinct_share=0.70, refresh_share=0.05),
)


@dataclass(frozen=True, slots=True)
class LoadConfig:
    seconds: float = 30.0
    concurrency: int = 32
    hot_questions: int = 50
    refresh_keys: int = 2
    seed: int = 11
    seconds_per_output_token: float = 0.002
    # Below what single flight alone allows one key (one call per upstream latency, about
    # 6/s with this engine), so the bucket, not single flight, is what holds the storm.
    bucket_capacity: int = 10
    bucket_refill_per_s: float = 2.0
    breaker_misses_per_minute: int = 120
    request_timeout_s: float = 60.0
    mixes: tuple[LoadMix, ...] = MIXES
    data_dir: Path = DEMO_DATA_DIR
    work_dir: Path | None = None
    keep_work_dir: bool = False

    def stack_config(self) -> StackConfig:
        return StackConfig(
            tenants=("tenant-load",),
            engine_settings={"seconds_per_output_token": self.seconds_per_output_token},
            gateway_settings={
                "bucket_capacity": self.bucket_capacity,
                "bucket_refill_per_s": self.bucket_refill_per_s,
                "breaker_misses_per_minute": self.breaker_misses_per_minute,
            },
            redis_history=False,
            gateway_log_level="WARNING",
            work_dir=self.work_dir,
            keep_work_dir=self.keep_work_dir,
        )


@dataclass(frozen=True, slots=True)
class Sample:
    """One response: which key it asked for, what came back, and how fast."""

    category: str
    key: str
    status: int
    cache: str
    seconds: float
    completion_id: str | None
    #: Gateway time minus upstream time (s), on answers that went upstream.
    gateway_overhead_s: float | None


@dataclass(frozen=True, slots=True)
class MixResult:
    mix: LoadMix
    samples: list[Sample]
    started_at: float
    ended_at: float
    seconds: float


def distinct_questions(data_dir: Path) -> list[str]:
    """One cacheable dev question per labelled answer class (distinct semantic keys)."""
    by_class: dict[str, str] = {}
    for line in (data_dir / "queries_dev.jsonl").read_text("utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("cacheable") and row.get("cid"):
            by_class.setdefault(row["cid"], row["text"])
    return [by_class[cid] for cid in sorted(by_class)]


def _body(question: str) -> bytes:
    return orjson.dumps(
        {
            "model": "cachecoh-offline",
            "messages": [{"role": "user", "content": question}],
            "temperature": 0,
            "max_tokens": 64,
        }
    )


def _overhead(server_timing: str | None) -> float | None:
    if not server_timing:
        return None
    durations: dict[str, float] = {}
    for part in server_timing.split(","):
        name, _, value = part.strip().partition(";dur=")
        if value:
            durations[name] = float(value)
    if "gateway" not in durations or "upstream" not in durations:
        return None
    return max(0.0, durations["gateway"] - durations["upstream"]) / 1000


class LoadDriver:
    def __init__(self, stack: CheckStack, config: LoadConfig, questions: Sequence[str]) -> None:
        self.stack = stack
        self.config = config
        chooser = random.Random(config.seed)  # noqa: S311 - a reproducible workload
        shuffled = list(questions)
        chooser.shuffle(shuffled)
        self.hot = shuffled[: config.hot_questions]
        self.cold = shuffled[config.hot_questions :] or shuffled
        self.random = chooser
        api_key = next(iter(stack.api_keys.values()))
        self.client = KeepAliveClient(stack.gateway_url, api_key=api_key)
        self._distinct = 0

    async def _send(self, category: str, question: str, namespace: str, refresh: bool) -> Sample:
        headers = {"x-cache-namespace": namespace} if namespace else {}
        if refresh:
            headers["cache-control"] = "no-cache"
        raw = self.client.request(_body(question), headers)
        key = f"{namespace}|{question}"
        try:
            reply = await asyncio.wait_for(self.client.exchange(raw), self.config.request_timeout_s)
        except (TimeoutError, ConnectionError, OSError):
            return Sample(category, key, 0, "", self.config.request_timeout_s, None, None)
        return Sample(
            category=category,
            key=key,
            status=reply.status,
            cache=reply.headers.get("x-cache", ""),
            seconds=reply.seconds,
            completion_id=answer_origin(reply.headers, reply.body) if reply.status == 200 else None,
            gateway_overhead_s=_overhead(reply.headers.get("server-timing")),
        )

    async def warm(self) -> list[Sample]:
        return [await self._send("warm", question, "", False) for question in self.hot]

    async def run_mix(self, mix: LoadMix) -> MixResult:
        samples: list[Sample] = []
        deadline = time.monotonic() + self.config.seconds
        refresh_keys = self.hot[: self.config.refresh_keys]

        async def worker() -> None:
            while time.monotonic() < deadline:
                roll = self.random.random()
                if roll < mix.refresh_share:
                    sample = await self._send("refresh", self.random.choice(refresh_keys), "", True)
                elif roll < mix.refresh_share + mix.distinct_share:
                    self._distinct += 1
                    namespace = f"{mix.name}-{self._distinct}"
                    sample = await self._send(
                        "distinct", self.random.choice(self.cold), namespace, False
                    )
                else:
                    sample = await self._send("hot", self.random.choice(self.hot), "", False)
                samples.append(sample)

        started_at = time.time()
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(self.config.concurrency)))
        seconds = time.perf_counter() - started
        return MixResult(mix, samples, started_at, time.time(), seconds)

    async def close(self) -> None:
        await self.client.close()


# -- figures ---------------------------------------------------------------------------


def mix_figures(result: MixResult, ledger: Sequence[LedgerLine]) -> dict[str, Any]:
    samples = result.samples
    by_outcome: dict[str, list[float]] = defaultdict(list)
    for sample in samples:
        if sample.status != 200:
            by_outcome[f"status_{sample.status}"].append(sample.seconds)
        elif sample.cache.startswith("HIT"):
            by_outcome["hit"].append(sample.seconds)
        else:
            by_outcome["upstream"].append(sample.seconds)
    upstream_calls = sum(
        1 for line in ledger if result.started_at <= line.arrived_at <= result.ended_at
    )
    return {
        "requests": len(samples),
        "seconds": round(result.seconds, 2),
        "req_per_s": round(len(samples) / result.seconds, 1) if result.seconds else 0.0,
        "latency": latency_summary([s.seconds for s in samples]),
        "latency_by_outcome": {
            name: {"requests": len(values), **latency_summary(values)}
            for name, values in sorted(by_outcome.items())
        },
        "statuses": dict(sorted(Counter(str(s.status) for s in samples).items())),
        "cache_states": dict(
            sorted(Counter(s.cache.split(";", 1)[0] or "none" for s in samples).items())
        ),
        "categories": dict(sorted(Counter(s.category for s in samples).items())),
        "upstream_calls": upstream_calls,
        "upstream_calls_per_s": round(upstream_calls / result.seconds, 1)
        if result.seconds
        else 0.0,
    }


@dataclass(frozen=True, slots=True)
class BucketCheck:
    capacity: int
    refill_per_s: float
    slack_s: float
    keys_with_upstream_calls: int
    max_calls_per_key: int
    violations: int
    #: The smallest (allowed - observed) over every window of every key (>= 0 holds).
    tightest_margin: float
    unattributed_upstream_calls: int
    #: Calls made for answers the gateway bypassed (X-Cache: BYPASS): the client's own
    #: request forwarded, never a cache fill, so no question's bucket applies to them.
    bypass_upstream_calls: int = 0
    bypass_keys: int = 0
    bypass_reasons: dict[str, int] = field(default_factory=dict)
    refresh_keys: list[dict[str, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_bucket(
    samples: Sequence[Sample],
    ledger: Sequence[LedgerLine],
    *,
    capacity: int,
    refill_per_s: float,
    refresh_keys: Sequence[str],
) -> BucketCheck:
    """Upstream calls per key against the bucket, for every window (see module doc)."""
    arrival = {line.completion_id: line.arrived_at for line in ledger if line.completion_id}
    ids_by_key: dict[str, set[str]] = defaultdict(set)
    bypass_ids_by_key: dict[str, set[str]] = defaultdict(set)
    bypass_reasons: Counter[str] = Counter()
    for sample in samples:
        if sample.completion_id is None:
            continue
        if sample.cache.startswith("BYPASS"):
            bypass_ids_by_key[sample.key].add(sample.completion_id)
            bypass_reasons[sample.cache.partition("reason=")[2] or "unknown"] += 1
        else:
            ids_by_key[sample.key].add(sample.completion_id)
    attributed: set[str] = set().union(*bypass_ids_by_key.values())
    overheads = [s.gateway_overhead_s for s in samples if s.gateway_overhead_s is not None]
    slack = max(overheads, default=0.0) + 0.005
    violations = 0
    tightest = float("inf")
    max_calls = 0
    per_key: dict[str, list[float]] = {}
    for key, ids in ids_by_key.items():
        times = sorted(arrival[i] for i in ids if i in arrival)
        attributed |= ids
        per_key[key] = times
        max_calls = max(max_calls, len(times))
        for i in range(len(times)):
            for j in range(i, len(times)):
                allowed = capacity + refill_per_s * (times[j] - times[i] + slack)
                margin = allowed - (j - i + 1)
                tightest = min(tightest, margin)
                if margin < 0:
                    violations += 1
    refresh = []
    for key in refresh_keys:
        times = per_key.get(f"|{key}", [])
        span = times[-1] - times[0] if len(times) > 1 else 0.0
        refresh.append(
            {
                "upstream_calls": len(times),
                "span_s": round(span, 2),
                "allowed_by_bucket": round(capacity + refill_per_s * (span + slack), 1),
                "calls_per_s_after_burst": round(max(0, len(times) - capacity) / span, 2)
                if span
                else 0.0,
            }
        )
    return BucketCheck(
        capacity=capacity,
        refill_per_s=refill_per_s,
        slack_s=round(slack, 4),
        keys_with_upstream_calls=sum(1 for t in per_key.values() if t),
        max_calls_per_key=max_calls,
        violations=violations,
        tightest_margin=round(tightest, 3) if tightest != float("inf") else 0.0,
        unattributed_upstream_calls=sum(
            1 for line in ledger if line.completion_id and line.completion_id not in attributed
        ),
        bypass_upstream_calls=sum(len(ids) for ids in bypass_ids_by_key.values()),
        bypass_keys=len(bypass_ids_by_key),
        bypass_reasons=dict(bypass_reasons),
        refresh_keys=refresh,
    )


def gateway_counters(url: str, names: Sequence[str]) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=30).text
    wanted = set(names)
    values = dict.fromkeys(names, 0.0)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in wanted:
                values[sample.name] += float(sample.value)
    return values


def run_load(config: LoadConfig) -> dict[str, Any]:
    questions = distinct_questions(config.data_dir)
    with running_stack(config.stack_config()) as stack:
        memory: dict[str, Mapping[str, float]] = {"start": memory_mib(stack.memory())}
        mixes: list[MixResult] = []
        warm: list[Sample] = []

        async def drive() -> LoadDriver:
            driver = LoadDriver(stack, config, questions)
            try:
                warm.extend(await driver.warm())
                for mix in config.mixes:
                    mixes.append(await driver.run_mix(mix))
                    memory[f"after_{mix.name}"] = memory_mib(stack.memory())
            finally:
                await driver.close()
            return driver

        driver = asyncio.run(drive())
        kept = str(stack.work_dir) if config.keep_work_dir else None
        ledger = stack.ledger_lines()
        counters = gateway_counters(
            stack.gateway_url,
            (
                "cachecoh_gateway_fill_breaker_trips_total",
                "cachecoh_gateway_token_bucket_rejections_total",
                "cachecoh_gateway_client_override_rejections_total",
            ),
        )
    all_samples = warm + [s for result in mixes for s in result.samples]
    bucket = check_bucket(
        all_samples,
        ledger,
        capacity=config.bucket_capacity,
        refill_per_s=config.bucket_refill_per_s,
        refresh_keys=driver.hot[: config.refresh_keys],
    )
    statuses = {s.status for s in all_samples}
    report: dict[str, Any] = {
        "config": {
            "seconds_per_mix": config.seconds,
            "concurrency": config.concurrency,
            "hot_questions": config.hot_questions,
            "refresh_keys": config.refresh_keys,
            "engine_seconds_per_output_token": config.seconds_per_output_token,
            "bucket_capacity": config.bucket_capacity,
            "bucket_refill_per_s": config.bucket_refill_per_s,
            "breaker_misses_per_minute": config.breaker_misses_per_minute,
            "mixes": {m.name: asdict(m) for m in config.mixes},
        },
        "mixes": {result.mix.name: mix_figures(result, ledger) for result in mixes},
        "upstream_calls_total": sum(1 for line in ledger if line.completion_id),
        "bucket": bucket.to_dict(),
        "breaker_trips": int(counters["cachecoh_gateway_fill_breaker_trips_total"]),
        "bucket_rejections": int(counters["cachecoh_gateway_token_bucket_rejections_total"]),
        # no-cache storms meet their API key's own (smaller) bucket first.
        "client_override_rejections": int(
            counters["cachecoh_gateway_client_override_rejections_total"]
        ),
        "unexpected_statuses": sorted(statuses - EXPECTED_STATUSES),
        "memory_mib": memory,
    }
    if kept is not None:
        report["work_dir"] = kept
    report["passed"] = bucket.violations == 0 and not report["unexpected_statuses"]
    return report
