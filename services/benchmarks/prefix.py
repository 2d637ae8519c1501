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
from services.core.catalog import STORE_PRODUCT_ID, ProductFacts
from services.core.prefix_blocks import block_hashes
from services.core.prompt import (
    ConversationTurn,
    PromptInputs,
    apply_tenant_salt,
    build_prompt,
    render_chat_prompt,
)
from services.core.routing import RoutingPolicy
from services.inference.launcher import ManagedProcess, start_engine, start_router, wait_healthy
from services.inference.metrics_bridge import ReplicaCacheMetrics, parse_replica_metrics
from services.inference.templates import load_matcher
from services.inference.tokenization import OfflineTokenizer
from services.paths import DEMO_DATA_DIR

MODEL = "cachecoh-offline"
TARGET_RATIO = 0.90
TARGET_IMBALANCE = 1.25


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
class PrefixBenchReport:
    config: dict[str, Any]
    workload: dict[str, Any]
    single_replica: RunResult
    policies: dict[str, RunResult]

    def targets(self) -> dict[str, Any]:
        affinity = self.policies.get(RoutingPolicy.PREFIX_AFFINITY.value)
        if affinity is None:
            return {}
        ratio = affinity.ratio_to_single or 0.0
        return {
            "prefix_affinity_ratio_min": TARGET_RATIO,
            "load_max_over_mean_max": TARGET_IMBALANCE,
            "prefix_affinity_ratio": ratio,
            "prefix_affinity_load_max_over_mean": affinity.load_max_over_mean,
            "met": ratio >= TARGET_RATIO and affinity.load_max_over_mean <= TARGET_IMBALANCE,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": "prefix",
            "config": self.config,
            "workload": self.workload,
            "single_replica": asdict(self.single_replica),
            "policies": {name: asdict(result) for name, result in self.policies.items()},
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
    matcher = load_matcher(data)
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
        match = matcher.match(query["text"], attribute=query["attribute"])
        templates_used.add(match.template.template_id)
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
                system_prompt=matcher.catalog.system_prompt,
                template=match.template,
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


def _scrape(client: httpx.Client, engines: Sequence[ManagedProcess]) -> list[ReplicaCacheMetrics]:
    return [parse_replica_metrics(client.get(f"{e.url}/metrics").text) for e in engines]


def _route_reasons(client: httpx.Client, router: ManagedProcess) -> dict[str, int]:
    reasons: Counter[str] = Counter()
    for family in text_string_to_metric_families(client.get(f"{router.url}/metrics").text):
        for sample in family.samples:
            if sample.name == "cachecoh_router_requests_total":
                reasons[sample.labels["reason"]] += int(sample.value)
    return dict(reasons)


def _measure(
    engines: Sequence[ManagedProcess],
    policy: RoutingPolicy,
    workload: Workload,
    config: PrefixBenchConfig,
    log_dir: Path,
    progress: Progress,
    label: str,
) -> RunResult:
    with httpx.Client(timeout=10.0) as client:
        for engine in engines:
            client.post(f"{engine.url}/reset_prefix_cache").raise_for_status()
        router = start_router(
            f"router-{label}",
            [e.url for e in engines],
            {
                "policy": policy.value,
                "affinity_blocks": config.affinity_blocks,
                "load_factor": config.load_factor,
                "load_window": config.load_window,
            },
            log_dir=log_dir,
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
            before = _scrape(client, engines)
            started = time.perf_counter()
            errors = asyncio.run(
                _replay(router.url, workload.bodies, config.concurrency, progress, label)
            )
            elapsed = time.perf_counter() - started
            after = _scrape(client, engines)
            reasons = _route_reasons(client, router)  # includes the warm-up
        finally:
            router.stop()
    queried = sum(a.queried_tokens - b.queried_tokens for a, b in zip(after, before, strict=True))
    hits = sum(a.hit_tokens - b.hit_tokens for a, b in zip(after, before, strict=True))
    served = tuple(
        int(a.requests_succeeded - b.requests_succeeded) for a, b in zip(after, before, strict=True)
    )
    mean = sum(served) / len(served)
    return RunResult(
        hit_rate=hits / queried if queried else 0.0,
        queried_tokens=int(queried),
        hit_tokens=int(hits),
        requests_per_replica=served,
        load_max_over_mean=max(served) / mean if mean else 0.0,
        errors=errors,
        elapsed_seconds=round(elapsed, 2),
        route_reasons=reasons,
    )


def run_prefix_bench(
    config: PrefixBenchConfig, *, log_dir: Path | None = None
) -> PrefixBenchReport:
    console = Console(file=sys.stderr)
    tokenizer = OfflineTokenizer.from_file()
    workload = build_workload(config, tokenizer)
    per_replica = config.blocks_per_replica or math.ceil(workload.static_blocks / config.replicas)
    engine_settings: dict[str, Any] = {
        "seconds_per_prefill_token": config.seconds_per_prefill_token,
        "seconds_per_output_token": config.seconds_per_output_token,
    }
    with tempfile.TemporaryDirectory(prefix="cachecoh-bench-") as tmp:
        logs = log_dir or Path(tmp)
        engines = [
            start_engine(
                f"engine-{i}", {**engine_settings, "kv_cache_blocks": per_replica}, log_dir=logs
            )
            for i in range(config.replicas)
        ]
        single = start_engine(
            "engine-single",
            {**engine_settings, "kv_cache_blocks": per_replica * config.replicas},
            log_dir=logs,
        )
        try:
            wait_healthy([*engines, single])
            with Progress(console=console, transient=True) as progress:
                reference = _measure(
                    [single], RoutingPolicy.ROUND_ROBIN, workload, config, logs, progress, "single"
                )
                results = {
                    policy.value: _measure(
                        engines, policy, workload, config, logs, progress, policy.value
                    )
                    for policy in config.policies
                }
        finally:
            for process in [*engines, single]:
                process.stop()
    policies = {name: _with_ratio(result, reference.hit_rate) for name, result in results.items()}
    config_dict = {k: v for k, v in asdict(config).items() if k not in ("salt_key", "data_dir")}
    config_dict["policies"] = [p.value for p in config.policies]
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
            "blocks_per_replica": per_replica,
            "single_replica_blocks": per_replica * config.replicas,
        },
        single_replica=reference,
        policies=policies,
    )


def _with_ratio(result: RunResult, reference_hit_rate: float) -> RunResult:
    ratio = result.hit_rate / reference_hit_rate if reference_hit_rate else None
    return RunResult(**{**asdict(result), "ratio_to_single": ratio})


def render_text(report: PrefixBenchReport) -> str:
    lines = [
        f"single replica: hit rate {report.single_replica.hit_rate:.3f} "
        f"({report.workload['single_replica_blocks']} blocks)"
    ]
    for name, result in report.policies.items():
        lines.append(
            f"{name:>16}: hit rate {result.hit_rate:.3f}, ratio {result.ratio_to_single or 0:.3f}, "
            f"load max/mean {result.load_max_over_mean:.3f}, errors {result.errors}"
        )
    return "\n".join(lines)
