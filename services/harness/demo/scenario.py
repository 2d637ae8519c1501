"""The demo's script: replay customer questions, change a product, watch the caches.

Every number shown is read from the real system: ``X-Cache`` headers of the gateway's
answers, the engine's vLLM-named prefix-cache counters, and the worker's audit log.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table

from services.harness.stack import Stack
from services.inference.metrics_bridge import MetricsParseError, parse_replica_metrics
from services.paths import DEMO_DATA_DIR

TARGET_QUESTION = "苹果15看视频能用多久"
TARGET_PRODUCT = "iphone_15"
TARGET_CHANGE = {"battery_life.video_playback": {"value": 22, "unit": "h"}}
VERSION = re.compile(r"spec_version (\d+)")


@dataclass
class Tally:
    """What the gateway's ``X-Cache`` headers said, and what the audit log recorded."""

    states: Counter[str] = field(default_factory=Counter)
    bypass_reasons: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    errors: int = 0
    invalidations: list[dict[str, Any]] = field(default_factory=list)
    before: str = ""
    after: str = ""
    probes_after_ack: int = 0
    stale_after_ack: int = 0
    prefix_hit_ratio: float | None = None
    dead_letters: int = 0
    phase: str = "starting"

    def record(self, header: str) -> None:
        self.requests += 1
        state, *params = [p.strip() for p in header.split(";")] if header else ["NONE"]
        extra = dict(p.split("=", 1) for p in params if "=" in p)
        if state == "HIT":
            self.states[f"HIT {extra.get('layer', '?')}"] += 1
        elif state == "BYPASS":
            self.states["BYPASS"] += 1
            self.bypass_reasons[extra.get("reason", "?")] += 1
        else:
            self.states[state] += 1

    def ratios(self) -> dict[str, float]:
        cacheable = self.requests - self.states["BYPASS"] - self.errors
        request_hits = self.states["HIT request"]
        semantic_hits = self.states["HIT semantic"]
        return {
            "request": request_hits / cacheable if cacheable else 0.0,
            "semantic": semantic_hits / (cacheable - request_hits)
            if cacheable > request_hits
            else 0.0,
        }


def _questions(rng: random.Random) -> list[str]:
    """Paraphrase groups (same answer class) plus questions that must bypass."""
    rows = [
        json.loads(line) for line in (DEMO_DATA_DIR / "queries_dev.jsonl").open(encoding="utf-8")
    ]
    by_class: dict[str, list[str]] = {}
    for row in rows:
        if row["cacheable"]:
            by_class.setdefault(row["cid"], []).append(row["text"])
    groups = [texts for texts in by_class.values() if len(texts) >= 2]
    rng.shuffle(groups)
    picked = [t for texts in groups[:40] for t in texts[:3]]
    bypass = [r["text"] for r in rows if not r["cacheable"]]
    rng.shuffle(bypass)
    return picked + bypass[:15]


class DemoClient:
    def __init__(self, stack: Stack, tally: Tally) -> None:
        self._stack = stack
        self._tally = tally
        self._http = httpx.AsyncClient(base_url=stack.gateway_url, timeout=30)

    async def ask(self, tenant: str, text: str) -> tuple[str, str]:
        key = self._stack.api_keys[tenant]
        try:
            response = await self._http.post(
                "/v1/chat/completions",
                headers={"Authorization": f"Bearer {key}"},
                json={
                    "model": "cachecoh-offline",
                    "messages": [{"role": "user", "content": text}],
                    "temperature": 0,
                },
            )
        except httpx.HTTPError:
            self._tally.errors += 1
            return "", ""
        header = response.headers.get("x-cache", "")
        self._tally.record(header)
        if response.status_code != 200:
            return header, ""
        return header, str(response.json()["choices"][0]["message"]["content"])

    async def prefix_hit_ratio(self) -> float | None:
        try:
            text = (await self._http.get(f"{self._stack.engine_url}/metrics")).text
        except httpx.HTTPError:
            return None
        try:
            return parse_replica_metrics(text).hit_ratio
        except MetricsParseError:
            return None

    async def close(self) -> None:
        await self._http.aclose()


def render(tally: Tally, deadline: float) -> Group:
    ratios = tally.ratios()
    layers = Table(title="cache layers (from X-Cache headers and engine metrics)", expand=True)
    for column in ("layer", "hits", "hit ratio"):
        layers.add_column(column)
    layers.add_row("request (exact)", str(tally.states["HIT request"]), f"{ratios['request']:.0%}")
    layers.add_row(
        "semantic (fingerprint)", str(tally.states["HIT semantic"]), f"{ratios['semantic']:.0%}"
    )
    prefix = "n/a" if tally.prefix_hit_ratio is None else f"{tally.prefix_hit_ratio:.0%}"
    layers.add_row("prefix/KV (engine, tokens)", "-", prefix)
    layers.add_row(
        "misses / stale / bypass",
        f"{tally.states['MISS']} / {tally.states['STALE']} / {tally.states['BYPASS']}",
        "",
    )
    events = Table(title="invalidations (worker audit log)", expand=True)
    for column in ("event", "product", "changed", "outcome", "tags bumped", "lag ms"):
        events.add_column(column)
    for row in tally.invalidations[-6:]:
        events.add_row(
            row["event_id"][:8],
            str(row["product_id"]),
            ", ".join(row["changed_fields"]) or "-",
            row["outcome"],
            str(len(row["tags"])),
            "-" if row["lag_ms"] is None else f"{row['lag_ms']:.1f}",
        )
    answer = Panel(
        "\n".join(
            (
                f"[b]question[/b] {TARGET_QUESTION}",
                f"[b]before[/b] {tally.before or '…'}",
                f"[b]after[/b]  {tally.after or '…'}",
                f"[b]reads after the invalidation[/b] {tally.probes_after_ack}, "
                f"old answer served: {tally.stale_after_ack}",
            )
        ),
        title="the changed product",
    )
    left = max(0, int(deadline - time.monotonic()))
    return Group(
        f"[b]{tally.phase}[/b]  ({tally.requests} requests, {left}s left)", layers, events, answer
    )


async def _replay(
    client: DemoClient, questions: list[str], until: float, rng: random.Random
) -> None:
    tenants = list(client._stack.api_keys)
    queue = [(tenant, q) for q in questions for tenant in tenants]
    rng.shuffle(queue)
    queue += queue[: len(queue) // 2]  # exact repeats

    async def worker(items: list[tuple[str, str]]) -> None:
        for tenant, text in items:
            if time.monotonic() > until:
                return
            await client.ask(tenant, text)

    lanes = 6
    await asyncio.gather(*(worker(queue[i::lanes]) for i in range(lanes)))


async def _invalidate(stack: Stack, client: DemoClient, tally: Tally) -> None:
    assert stack.spec_store is not None and stack.audit is not None
    _, tally.before = await client.ask("acme", TARGET_QUESTION)
    _, tally.before = await client.ask("acme", TARGET_QUESTION)  # now served from cache
    old_version = stack.spec_store.get(TARGET_PRODUCT).spec_version  # type: ignore[union-attr]
    probes: list[tuple[float, str]] = []
    stop = asyncio.Event()

    async def probe() -> None:
        while not stop.is_set():
            started = time.time()
            _, answer = await client.ask("acme", TARGET_QUESTION)
            probes.append((started, answer))
            await asyncio.sleep(0.02)

    prober = asyncio.create_task(probe())
    event = await asyncio.to_thread(stack.spec_store.update, TARGET_PRODUCT, TARGET_CHANGE)
    assert event is not None
    applied_at = await _wait_audited(stack, event.event_id)
    await asyncio.sleep(1.0)
    stop.set()
    await prober
    after = [
        answer for started, answer in probes if applied_at is not None and started > applied_at
    ]
    versions = [v for v in map(_version, after) if v is not None]
    tally.probes_after_ack = len(versions)
    tally.stale_after_ack = sum(1 for v in versions if v <= old_version)
    _, tally.after = await client.ask("acme", TARGET_QUESTION)


def _version(answer: str) -> int | None:
    match = VERSION.search(answer)
    return int(match.group(1)) if match else None


async def _wait_audited(stack: Stack, event_id: str, timeout_s: float = 30) -> float | None:
    assert stack.audit is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = await asyncio.to_thread(stack.audit.rows, 50)
        for row in rows:
            if row["event_id"] == event_id:
                return float(row["applied_at"].timestamp())
        await asyncio.sleep(0.05)
    return None


async def _more_events(stack: Stack) -> None:
    """A variant-precise update, a store-wide policy change and a malformed event."""
    assert stack.spec_store is not None
    await asyncio.to_thread(
        stack.spec_store.update, "xiaomi_14", {"price.256GB": {"value": 4099, "unit": "CNY"}}
    )

    def publish_malformed() -> None:
        with stack.publisher() as publisher:
            publisher.publish_raw(b"iphone_15", b'{"specversion": "0.3", "oops": true}')

    await asyncio.to_thread(publish_malformed)


async def run_scenario(stack: Stack, seconds: float, console: Console) -> Tally:
    rng = random.Random(7)  # noqa: S311 - a reproducible replay order
    tally = Tally()
    client = DemoClient(stack, tally)
    questions = _questions(rng)
    deadline = time.monotonic() + seconds
    try:
        with Live(render(tally, deadline), console=console, refresh_per_second=4) as live:

            async def refresh() -> None:
                seen: set[str] = set()
                while True:
                    assert stack.audit is not None
                    for row in reversed(await asyncio.to_thread(stack.audit.rows, 20)):
                        if row["event_id"] not in seen:
                            seen.add(row["event_id"])
                            tally.invalidations.append(row)
                            tally.dead_letters += row["outcome"] == "dead_lettered"
                    tally.prefix_hit_ratio = await client.prefix_hit_ratio()
                    live.update(render(tally, deadline))
                    await asyncio.sleep(0.25)

            refresher = asyncio.create_task(refresh())
            tally.phase = "1/3 replaying customer questions (two tenants)"
            await _replay(client, questions, time.monotonic() + seconds * 0.45, rng)
            tally.phase = "2/3 the business changes iPhone 15 video playback (20 h → 22 h)"
            await _invalidate(stack, client, tally)
            await _more_events(stack)
            tally.phase = "3/3 replaying again"
            await _replay(client, questions, deadline, rng)
            await asyncio.sleep(0.5)
            refresher.cancel()
            live.update(render(tally, deadline))
    finally:
        await client.close()
    return tally


def summary(tally: Tally, stack: Stack) -> dict[str, Any]:
    ratios = tally.ratios()
    lags = [
        r["lag_ms"]
        for r in tally.invalidations
        if r["outcome"] == "applied" and r["lag_ms"] is not None
    ]
    return {
        "requests": tally.requests,
        "errors": tally.errors,
        "hits": {"request": tally.states["HIT request"], "semantic": tally.states["HIT semantic"]},
        "hit_ratio": {k: round(v, 3) for k, v in ratios.items()},
        "prefix_cache_hit_ratio": None
        if tally.prefix_hit_ratio is None
        else round(tally.prefix_hit_ratio, 3),
        "misses": tally.states["MISS"],
        "stale_lookups": tally.states["STALE"],
        "bypassed": dict(tally.bypass_reasons),
        "invalidations_applied": len(lags),
        "invalidation_lag_ms_max": round(max(lags), 1) if lags else None,
        "dead_lettered": tally.dead_letters,
        "answer_before": tally.before,
        "answer_after": tally.after,
        "reads_after_invalidation": tally.probes_after_ack,
        "old_answer_served_after_invalidation": tally.stale_after_ack,
        "topics": [stack.topic, stack.dlq_topic],
    }
