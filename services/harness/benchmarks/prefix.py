"""``cachecoh bench prefix``: prefix-cache hit rate per routing policy over N replicas.

The workload: many tenants (each with its own cache salt, so tenants never share blocks)
asking the labelled dev questions; each request is a canonical prompt (system prompt, the
SOP template of the question's attribute family, the product facts, the question). It is
replayed through a real router in front of N real offline-engine processes, once per
policy, and once through a single replica for reference.

Memory is the same in every run: each of the N replicas has ``blocks_per_replica`` KV
blocks and the single reference replica has N times that. By default the budget is sized
so that the cluster's total KV memory equals the workload's working set (its distinct
blocks): one big replica then holds everything, while round-robin makes every replica
cache every prefix in a quarter of the memory. The report gives the hit rate (hit /
queried prompt tokens, from the replicas' own vLLM counters), its ratio to the single
replica's, and the load imbalance (max / mean requests served per replica).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.progress import Progress

from services.adapters.catalog_files import load_catalog
from services.adapters.embedded_broker import free_port
from services.core.catalog import STORE_PRODUCT_ID, ProductFacts
from services.core.prefix_blocks import block_hashes
from services.core.prompt import (
    ConversationTurn,
    PromptInputs,
    apply_tenant_salt,
    build_prompt,
    render_chat_prompt,
    sop_catalog_from_dict,
)
from services.core.routing import RoutingPolicy
from services.inference.launcher import ManagedProcess, start_engine, start_router, wait_healthy
from services.inference.metrics_bridge import ReplicaCacheMetrics, parse_replica_metrics
from services.inference.tokenization import OfflineTokenizer
from services.paths import DEMO_DATA_DIR

MODEL = "cachecoh-offline"
TARGET_RATIO = 0.90
TARGET_IMBALANCE = 1.25
#: kv_aware's targets: in the default scenario, and when a replica restarts / caches are small.
TARGET_KV_RATIO = 0.97
TARGET_KV_RATIO_STRESSED = 0.90
SCENARIOS = ("default", "replica_restart", "small_caches")


@dataclass(frozen=True, slots=True)
class PrefixBenchConfig:
    replicas: int = 4
    requests: int = 3000
    #: Requests replayed (from the same distribution) before measuring, so the figures
    #: describe a warm cluster rather than its first minutes.
    warmup_requests: int = 1500
    tenants: int = 200
    concurrency: int = 8
    seed: int = 7
    #: Zipf exponent of tenant popularity (0: uniform).
    tenant_skew: float = 0.6
    #: Share of requests that carry one earlier exchange before the question.
    follow_up_share: float = 0.2
    #: KV blocks per replica; ``None``: working set / replicas.
    blocks_per_replica: int | None = None
    affinity_blocks: int = 16
    load_factor: float = 1.25
    load_window: int = 256
    seconds_per_prefill_token: float = 0.00002
    seconds_per_output_token: float = 0.0002
    policies: tuple[RoutingPolicy, ...] = tuple(RoutingPolicy)
    #: Beside ``default``: one replica restarts (empty cache) halfway through the
    #: measured requests; every replica has ``small_cache_fraction`` of the default blocks.
    scenarios: tuple[str, ...] = SCENARIOS
    #: Policies compared in the scenarios other than ``default``.
    stressed_policies: tuple[RoutingPolicy, ...] = (
        RoutingPolicy.PREFIX_AFFINITY,
        RoutingPolicy.KV_AWARE,
    )
    small_cache_fraction: float = 1 / 3
    salt_key: bytes = b"cachecoh-bench-salt-key"
    data_dir: Path = DEMO_DATA_DIR


@dataclass(frozen=True, slots=True)
class Workload:
    warmup: tuple[dict[str, Any], ...]
    bodies: tuple[dict[str, Any], ...]
    templates: int
    distinct_blocks: int
    #: Distinct blocks of the static prefixes (system prompt, SOP, facts) alone: the
    #: reusable working set the KV budget is sized against.
    static_blocks: int
    mean_prompt_tokens: float


@dataclass(frozen=True, slots=True)
class RunResult:
    hit_rate: float
    queried_tokens: int
    hit_tokens: int
    requests_per_replica: tuple[int, ...]
    load_max_over_mean: float
    errors: int
    elapsed_seconds: float
    route_reasons: dict[str, int] = field(default_factory=dict)
    ratio_to_single: float | None = None


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    blocks_per_replica: int
    single_replica_blocks: int
    single_replica: RunResult
    policies: dict[str, RunResult]

    def to_dict(self) -> dict[str, Any]:
        return {
            "blocks_per_replica": self.blocks_per_replica,
            "single_replica_blocks": self.single_replica_blocks,
            "single_replica": asdict(self.single_replica),
            "policies": {name: asdict(result) for name, result in self.policies.items()},
        }


@dataclass(frozen=True, slots=True)
class PrefixBenchReport:
    config: dict[str, Any]
    workload: dict[str, Any]
    scenarios: dict[str, ScenarioResult]

    @property
    def single_replica(self) -> RunResult:
        return self.scenarios["default"].single_replica

    @property
    def policies(self) -> dict[str, RunResult]:
        return self.scenarios["default"].policies

    def targets(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        affinity = self.policies.get(RoutingPolicy.PREFIX_AFFINITY.value)
        if affinity is not None:
            ratio = affinity.ratio_to_single or 0.0
            out["prefix_affinity"] = {
                "ratio_min": TARGET_RATIO,
                "load_max_over_mean_max": TARGET_IMBALANCE,
                "ratio": ratio,
                "load_max_over_mean": affinity.load_max_over_mean,
                "met": ratio >= TARGET_RATIO and affinity.load_max_over_mean <= TARGET_IMBALANCE,
            }
        for name, scenario in self.scenarios.items():
            kv = scenario.policies.get(RoutingPolicy.KV_AWARE.value)
            if kv is None:
                continue
            floor = TARGET_KV_RATIO if name == "default" else TARGET_KV_RATIO_STRESSED
            ratio = kv.ratio_to_single or 0.0
            out[f"kv_aware_{name}"] = {
                "ratio_min": floor,
                "load_max_over_mean_max": TARGET_IMBALANCE,
                "ratio": ratio,
                "load_max_over_mean": kv.load_max_over_mean,
                "met": ratio >= floor and kv.load_max_over_mean <= TARGET_IMBALANCE,
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": "prefix",
            "config": self.config,
            "workload": self.workload,
            "scenarios": {name: result.to_dict() for name, result in self.scenarios.items()},
            "targets": self.targets(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def _store_facts(policy: dict[str, Any]) -> ProductFacts:
    """Store-wide policies as the reserved ``store`` product."""
    specs = {
        name: {"value": text} if isinstance(text, str) else text for name, text in policy.items()
    }
    return ProductFacts(
        product_id=STORE_PRODUCT_ID,
        category="store",
        brand="",
        spec_version=1,
        names_zh=("本店",),
        names_en=("Store policy",),
        specs=MappingProxyType(specs),
    )


def build_workload(config: PrefixBenchConfig, tokenizer: OfflineTokenizer) -> Workload:
    """Deterministic request bodies (salted per tenant) and their working set."""
    data = config.data_dir
    sop = sop_catalog_from_dict(_read(data / "sop_templates.json"))
    products = {p.product_id: p for p in load_catalog(data).products}
    store = _store_facts(_read(data / "policy.json")["store_policies"])
    queries = [
        q
        for q in (
            json.loads(line)
            for line in (data / "queries_dev.jsonl").read_text("utf-8").splitlines()
            if line
        )
        if q["cacheable"] and q["attribute"]
    ]
    rng = random.Random(config.seed)  # noqa: S311 - a reproducible workload, not a secret
    weights = [1.0 / (rank + 1) ** config.tenant_skew for rank in range(config.tenants)]
    tenants = [f"tenant-{index:03d}" for index in range(config.tenants)]
    bodies: list[dict[str, Any]] = []
    blocks: set[bytes] = set()
    static: set[bytes] = set()
    prompt_tokens = 0
    templates_used: set[str] = set()
    for _ in range(config.warmup_requests + config.requests):
        tenant = rng.choices(tenants, weights)[0]
        query = rng.choice(queries)
        # The gateway's choice: the template of the attribute's family.
        template = sop.for_attribute(query["attribute"]) or sop.generic
        templates_used.add(template.template_id)
        facts: tuple[ProductFacts, ...] = (store,)
        if query["product"] in products:
            facts = (
                (products[query["product"]],)
                if query["intent"] == "query_spec"
                else (
                    products[query["product"]],
                    store,
                )
            )
        conversation: tuple[ConversationTurn, ...] = ()
        if rng.random() < config.follow_up_share:
            earlier = rng.choice(queries)
            conversation = (
                ConversationTurn("user", earlier["text"]),
                ConversationTurn("assistant", "Let me check the product facts for you."),
            )
        prompt = build_prompt(
            PromptInputs(
                system_prompt=sop.system_prompt,
                template=template,
                question=query["text"],
                facts=facts,
                attributes=(query["attribute"],),
                conversation=conversation,
            )
        )
        body = apply_tenant_salt(
            {"model": MODEL, "messages": prompt.openai_messages(), "max_tokens": 64},
            tenant,
            salt_key=config.salt_key,
        )
        ids = tokenizer.encode(render_chat_prompt(body["messages"]))
        prompt_tokens += len(ids)
        blocks.update(block_hashes(ids, salt=body["cache_salt"]))
        static_ids = tokenizer.encode(
            render_chat_prompt(body["messages"][:1], add_generation_prompt=False)
        )
        static.update(block_hashes(static_ids, salt=body["cache_salt"]))
        bodies.append(body)
    return Workload(
        warmup=tuple(bodies[: config.warmup_requests]),
        bodies=tuple(bodies[config.warmup_requests :]),
        templates=len(templates_used),
        distinct_blocks=len(blocks),
        static_blocks=len(static),
        mean_prompt_tokens=prompt_tokens / max(1, len(bodies)),
    )


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


async def _replay(
    router_url: str,
    bodies: Sequence[dict[str, Any]],
    concurrency: int,
    progress: Progress,
    label: str,
) -> int:
    """Send every body through the router, ``concurrency`` at a time; count failures."""
    task = progress.add_task(label, total=len(bodies))
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    errors = 0

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal errors
        while not queue.empty():
            body = queue.get_nowait()
            try:
                response = await client.post(f"{router_url}/v1/chat/completions", json=body)
                if response.status_code != 200:
                    errors += 1
            except httpx.HTTPError:
                errors += 1
            progress.advance(task)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=60.0, limits=limits) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    return errors


@dataclass
class _Engine:
    """An engine process and what it takes to start it again (the restart scenario)."""

    name: str
    settings: dict[str, Any]
    port: int
    log_dir: Path
    process: ManagedProcess

    @classmethod
    def start(cls, name: str, settings: dict[str, Any], log_dir: Path) -> _Engine:
        port = free_port()
        endpoint = f"ipc://{log_dir / name}.kv"
        full = {**settings, "kv_events_endpoint": endpoint, "kv_events_topic": "kv"}
        return cls(name, full, port, log_dir, start_engine(name, full, log_dir=log_dir, port=port))

    @property
    def url(self) -> str:
        return self.process.url

    @property
    def kv_endpoint(self) -> str:
        return str(self.settings["kv_events_endpoint"])

    def restart(self) -> None:
        """SIGKILL, then the same engine again on the same port: an empty cache."""
        self.process.kill()
        self.process = start_engine(self.name, self.settings, log_dir=self.log_dir, port=self.port)


def _scrape(client: httpx.Client, engines: Sequence[_Engine]) -> list[ReplicaCacheMetrics]:
    return [parse_replica_metrics(client.get(f"{e.url}/metrics").text) for e in engines]


def _route_reasons(client: httpx.Client, router: ManagedProcess) -> dict[str, int]:
    reasons: Counter[str] = Counter()
    for family in text_string_to_metric_families(client.get(f"{router.url}/metrics").text):
        for sample in family.samples:
            if sample.name == "cachecoh_router_requests_total":
                reasons[sample.labels["reason"]] += int(sample.value)
    return dict(reasons)


def _deltas(
    before: Sequence[ReplicaCacheMetrics], after: Sequence[ReplicaCacheMetrics]
) -> tuple[float, float, list[float]]:
    queried = sum(a.queried_tokens - b.queried_tokens for a, b in zip(after, before, strict=True))
    hits = sum(a.hit_tokens - b.hit_tokens for a, b in zip(after, before, strict=True))
    served = [
        a.requests_succeeded - b.requests_succeeded for a, b in zip(after, before, strict=True)
    ]
    return queried, hits, served


_ZERO = ReplicaCacheMetrics(0.0, 0.0, None, 0.0, 0.0)


def _measure(
    engines: Sequence[_Engine],
    policy: RoutingPolicy,
    workload: Workload,
    config: PrefixBenchConfig,
    log_dir: Path,
    progress: Progress,
    label: str,
    *,
    restart_midway: bool = False,
) -> RunResult:
    router_settings: dict[str, Any] = {
        "policy": policy.value,
        "affinity_blocks": config.affinity_blocks,
        "load_factor": config.load_factor,
        "load_window": config.load_window,
        "health_interval_seconds": 0.5,
        "metrics_scrape_interval_seconds": 1.0,
    }
    if policy is RoutingPolicy.KV_AWARE:
        router_settings["kv_event_endpoints"] = [e.kv_endpoint for e in engines]
        router_settings["kv_events_topic"] = "kv"
    with httpx.Client(timeout=10.0) as client:
        for engine in engines:
            client.post(f"{engine.url}/reset_prefix_cache").raise_for_status()
        router = start_router(
            f"router-{label}", [e.url for e in engines], router_settings, log_dir=log_dir
        )
        try:
            wait_healthy([router])
            if workload.warmup:
                asyncio.run(
                    _replay(
                        router.url,
                        workload.warmup,
                        config.concurrency,
                        progress,
                        f"{label} warm-up",
                    )
                )
            halves: tuple[tuple[dict[str, Any], ...], ...] = (workload.bodies,)
            if restart_midway:
                middle = len(workload.bodies) // 2
                halves = (workload.bodies[:middle], workload.bodies[middle:])
            queried = hits = 0.0
            served = [0.0] * len(engines)
            errors = 0
            started = time.perf_counter()
            for number, bodies in enumerate(halves):
                before = _scrape(client, engines)
                if number == 1:
                    # The victim's counters start over with its process.
                    victim = len(engines) - 1
                    last = _scrape(client, engines[victim:])[0]
                    engines[victim].restart()
                    dq, dh, ds = _deltas([before[victim]], [last])
                    queried, hits, served[victim] = queried + dq, hits + dh, served[victim] + ds[0]
                    before[victim] = _ZERO
                errors += asyncio.run(
                    _replay(router.url, bodies, config.concurrency, progress, label)
                )
                if number == 1:
                    wait_healthy([engines[-1].process])
                dq, dh, ds = _deltas(before, _scrape(client, engines))
                queried, hits = queried + dq, hits + dh
                served = [total + delta for total, delta in zip(served, ds, strict=True)]
            elapsed = time.perf_counter() - started
            reasons = _route_reasons(client, router)  # includes the warm-up
        finally:
            router.stop()
    counts = tuple(int(n) for n in served)
    mean = sum(counts) / len(counts)
    return RunResult(
        hit_rate=hits / queried if queried else 0.0,
        queried_tokens=int(queried),
        hit_tokens=int(hits),
        requests_per_replica=counts,
        load_max_over_mean=max(counts) / mean if mean else 0.0,
        errors=errors,
        elapsed_seconds=round(elapsed, 2),
        route_reasons=reasons,
    )


def _run_scenario(
    name: str,
    per_replica: int,
    workload: Workload,
    config: PrefixBenchConfig,
    logs: Path,
    progress: Progress,
) -> ScenarioResult:
    engine_settings: dict[str, Any] = {
        "seconds_per_prefill_token": config.seconds_per_prefill_token,
        "seconds_per_output_token": config.seconds_per_output_token,
    }
    engines = [
        _Engine.start(
            f"{name}-engine-{i}", {**engine_settings, "kv_cache_blocks": per_replica}, logs
        )
        for i in range(config.replicas)
    ]
    single = _Engine.start(
        f"{name}-engine-single",
        {**engine_settings, "kv_cache_blocks": per_replica * config.replicas},
        logs,
    )
    policies = config.policies if name == "default" else config.stressed_policies
    try:
        wait_healthy([e.process for e in (*engines, single)])
        reference = _measure(
            [single], RoutingPolicy.ROUND_ROBIN, workload, config, logs, progress, f"{name} single"
        )
        results = {
            policy.value: _measure(
                engines,
                policy,
                workload,
                config,
                logs,
                progress,
                f"{name} {policy.value}",
                restart_midway=name == "replica_restart",
            )
            for policy in policies
        }
    finally:
        for engine in (*engines, single):
            engine.process.stop()
    return ScenarioResult(
        blocks_per_replica=per_replica,
        single_replica_blocks=per_replica * config.replicas,
        single_replica=reference,
        policies={n: _with_ratio(r, reference.hit_rate) for n, r in results.items()},
    )


def run_prefix_bench(
    config: PrefixBenchConfig, *, log_dir: Path | None = None
) -> PrefixBenchReport:
    console = Console(file=sys.stderr)
    tokenizer = OfflineTokenizer.from_file()
    workload = build_workload(config, tokenizer)
    per_replica = config.blocks_per_replica or math.ceil(workload.static_blocks / config.replicas)
    budgets = {
        "default": per_replica,
        "replica_restart": per_replica,
        "small_caches": max(1, math.ceil(per_replica * config.small_cache_fraction)),
    }
    scenarios: dict[str, ScenarioResult] = {}
    with tempfile.TemporaryDirectory(prefix="cachecoh-bench-") as tmp:
        logs = log_dir or Path(tmp)
        with Progress(console=console, transient=True) as progress:
            for name in config.scenarios:
                scenarios[name] = _run_scenario(
                    name, budgets[name], workload, config, logs, progress
                )
    config_dict = {k: v for k, v in asdict(config).items() if k not in ("salt_key", "data_dir")}
    config_dict["policies"] = [p.value for p in config.policies]
    config_dict["stressed_policies"] = [p.value for p in config.stressed_policies]
    return PrefixBenchReport(
        config=config_dict,
        workload={
            "requests": len(workload.bodies),
            "warmup_requests": len(workload.warmup),
            "tenants": config.tenants,
            "templates": workload.templates,
            "distinct_blocks": workload.distinct_blocks,
            "static_prefix_blocks": workload.static_blocks,
            "mean_prompt_tokens": round(workload.mean_prompt_tokens, 1),
        },
        scenarios=scenarios,
    )


def _with_ratio(result: RunResult, reference_hit_rate: float) -> RunResult:
    ratio = result.hit_rate / reference_hit_rate if reference_hit_rate else None
    return RunResult(**{**asdict(result), "ratio_to_single": ratio})


def render_text(report: PrefixBenchReport) -> str:
    lines = []
    for name, scenario in report.scenarios.items():
        lines.append(
            f"[{name}] single replica: hit rate {scenario.single_replica.hit_rate:.3f} "
            f"({scenario.single_replica_blocks} blocks)"
        )
        for policy, result in scenario.policies.items():
            lines.append(
                f"{policy:>16}: hit rate {result.hit_rate:.3f}, "
                f"ratio {result.ratio_to_single or 0:.3f}, "
                f"load max/mean {result.load_max_over_mean:.3f}, errors {result.errors}"
            )
    return "\n".join(lines)
