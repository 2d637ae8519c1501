"""Router policies against real engine processes, including a replica killed mid-run."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import openai
import pytest

from services.core.routing import ConsistentHashRing
from tests.integration.inference.conftest import (
    MODEL,
    StartEngines,
    StartRouter,
    engine_counter,
    replicas_state,
    served_by,
)

pytestmark = pytest.mark.integration

ChatBody = Callable[..., dict[str, Any]]

WORKLOAD = [
    (tenant, attribute, product, question)
    for tenant in ("t-a", "t-b", "t-c")
    for attribute, product, question in (
        ("battery_life", "iphone_15", "iPhone 15 看视频能用多久"),
        ("price", "xiaomi_14", "小米14 256G多少钱"),
        ("screen_size", "macbook_air_m3", "MacBook Air M3 screen size"),
    )
]


def _post(client: httpx.Client, url: str, body: dict[str, Any]) -> httpx.Response:
    response = client.post(f"{url}/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    return response


def test_round_robin_spreads_requests_evenly(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    engines = start_engines(3)
    router = start_router_for(engines, policy="round_robin")
    with httpx.Client(timeout=10) as client:
        served = Counter(
            served_by(_post(client, router.url, chat_body(*WORKLOAD[0]))) for _ in range(12)
        )
        assert sorted(served.values()) == [4, 4, 4]
        assert [engine_counter(client, e, "vllm:request_success_total") for e in engines] == [
            4,
            4,
            4,
        ]


def test_prefix_affinity_pins_each_prefix_and_beats_round_robin(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    engines = start_engines(3)
    hits: dict[str, float] = {}
    for policy in ("round_robin", "prefix_affinity"):
        for engine in engines:
            httpx.post(f"{engine.url}/reset_prefix_cache").raise_for_status()
        router = start_router_for(engines, policy=policy)
        with httpx.Client(timeout=10) as client:
            before = sum(engine_counter(client, e, "vllm:prefix_cache_hits_total") for e in engines)
            placements: dict[tuple[str, ...], set[str]] = {}
            # A fresh order per round: with 9 items on 3 replicas a fixed order would put
            # each item on the same replica every round, making round-robin look affine.
            rng = random.Random(11)
            for _ in range(4):
                order = list(WORKLOAD)
                rng.shuffle(order)
                for item in order:
                    placements.setdefault(item, set()).add(
                        served_by(_post(client, router.url, chat_body(*item)))
                    )
            after = sum(engine_counter(client, e, "vllm:prefix_cache_hits_total") for e in engines)
        hits[policy] = after - before
        if policy == "prefix_affinity":
            assert all(len(replicas) == 1 for replicas in placements.values())
            assert len(set().union(*placements.values())) >= 2  # keys spread over replicas
        router.stop()
    assert hits["prefix_affinity"] > hits["round_robin"]


def test_least_loaded_sends_less_to_a_slow_replica(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    fast = start_engines(2)
    (slow,) = start_engines(1, seconds_per_output_token=0.03)  # ~0.6 s per answer
    router = start_router_for([*fast, slow], policy="least_loaded")
    body = chat_body(*WORKLOAD[0])
    with httpx.Client(timeout=30) as client, ThreadPoolExecutor(6) as pool:
        served = Counter(pool.map(lambda _: served_by(_post(client, router.url, body)), range(60)))
    slow_name = slow.url.removeprefix("http://")
    assert served[slow_name] < min(served[f.url.removeprefix("http://")] for f in fast) / 2


def test_replica_killed_mid_run_is_ejected_and_no_request_fails(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    engines = start_engines(3, seconds_per_output_token=0.01)  # requests in flight when killed
    router = start_router_for(engines, policy="prefix_affinity", eject_after_failures=1)
    ring = ConsistentHashRing([e.url.removeprefix("http://") for e in engines])
    bodies = [chat_body(*item) for item in WORKLOAD]
    statuses: Counter[int] = Counter()
    placements: dict[int, list[str]] = {}
    # Replicas that served requests sent after the kill: on a loaded machine a worker may
    # not come round to every key again in the time left, so "the last placement of every
    # key" would also judge keys never asked after the kill.
    after_kill: dict[int, list[str]] = {}
    stop = threading.Event()
    killed = threading.Event()
    lock = threading.Lock()

    def worker(offset: int) -> None:
        with httpx.Client(timeout=30) as client:
            index = offset
            while not stop.is_set():
                key = index % len(bodies)
                sent_after_kill = killed.is_set()
                response = client.post(f"{router.url}/v1/chat/completions", json=bodies[key])
                with lock:
                    statuses[response.status_code] += 1
                    if response.status_code == 200:
                        placements.setdefault(key, []).append(served_by(response))
                        if sent_after_kill:
                            after_kill.setdefault(key, []).append(served_by(response))
                index += 1

    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(worker, i) for i in range(4)]
        time.sleep(1.0)
        victim = engines[1]
        victim.kill()
        killed.set()
        time.sleep(1.5)
        stop.set()
        for future in futures:
            future.result()

    victim_name = victim.url.removeprefix("http://")
    assert set(statuses) == {200}, statuses
    with httpx.Client(timeout=5) as client:
        state = replicas_state(client, router)
        assert state[victim_name]["healthy"] is False and state[victim_name]["ejections"] >= 1
        assert all(
            state[e.url.removeprefix("http://")]["healthy"] for e in engines if e is not victim
        )
        metrics = client.get(f"{router.url}/metrics").text
        assert f'cachecoh_router_replica_healthy{{replica="{victim_name}"}} 0.0' in metrics
    assert after_kill, "no request was sent after the kill"
    for served_after in after_kill.values():
        assert victim_name not in served_after
    for key, served in placements.items():
        # Consistent hashing: keys the victim did not own stay where they were.
        owner = ring.owner(_key_of(router, bodies[key]))
        if owner != victim_name:
            assert set(served) <= {owner, *_overflow_targets(served, owner)}


def _key_of(router: Any, body: dict[str, Any]) -> str:
    from services.inference.router.keying import PromptHasher
    from services.inference.tokenization import OfflineTokenizer

    hasher = PromptHasher(
        OfflineTokenizer.from_file(), block_size=16, affinity_blocks=16, hash_seed="0"
    )
    key = hasher.blocks(body["messages"], body["cache_salt"], whole_prompt=False).prefix_key
    assert key is not None
    return key


def _overflow_targets(served: list[str], owner: str) -> set[str]:
    # The bounded-load rule may move a few requests of a hot key; the owner keeps most.
    counts = Counter(served)
    assert counts[owner] >= len(served) / 2
    return set(counts) - {owner}


def test_stream_cut_by_a_dying_replica_ends_in_an_error_not_silence(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    (engine,) = start_engines(1, seconds_per_output_token=0.2)
    router = start_router_for([engine])
    client = openai.OpenAI(base_url=f"{router.url}/v1", api_key="unused", max_retries=0)
    body = chat_body(*WORKLOAD[0])
    stream = client.chat.completions.create(
        model=MODEL,
        messages=body["messages"],
        stream=True,
        extra_body={"cache_salt": body["cache_salt"]},
    )
    received = []
    with pytest.raises(openai.APIError, match="failed mid-stream"):
        for chunk in stream:
            received.append(chunk)
            if len(received) == 2:
                engine.kill()
    assert len(received) >= 2


def test_router_rejects_bad_input_and_reports_no_healthy_replica(
    start_engines: StartEngines, start_router_for: StartRouter
) -> None:
    (engine,) = start_engines(1)
    router = start_router_for([engine])
    with httpx.Client(timeout=5) as client:
        bad = client.post(f"{router.url}/v1/chat/completions", content=b"{not json")
        assert bad.status_code == 400 and "not JSON" in bad.json()["error"]["message"]
        bad = client.post(
            f"{router.url}/v1/chat/completions", json={"model": MODEL, "messages": "hi"}
        )
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "messages"
        engine.kill()
        deadline = time.monotonic() + 5
        while any(r["healthy"] for r in replicas_state(client, router).values()):
            assert time.monotonic() < deadline, "replica not ejected"
            time.sleep(0.1)
        assert client.get(f"{router.url}/ready").status_code == 503
        # Liveness is the router's own: it still answers.
        assert client.get(f"{router.url}/health").status_code == 200
        response = client.post(
            f"{router.url}/v1/chat/completions",
            json={"model": MODEL, "messages": [{"role": "user", "content": "x"}]},
        )
        assert response.status_code == 503
        assert "healthy" in json.loads(response.text)["error"]["message"]


def test_metrics_bridge_exports_per_replica_hit_ratio(
    start_engines: StartEngines, start_router_for: StartRouter, chat_body: ChatBody
) -> None:
    engines = start_engines(2)
    router = start_router_for(engines, metrics_scrape_interval_seconds=0.2)
    with httpx.Client(timeout=5) as client:
        for _ in range(3):
            _post(client, router.url, chat_body(*WORKLOAD[0]))
        deadline = time.monotonic() + 5
        while True:  # the bridge scrapes every 0.2 s
            text = client.get(f"{router.url}/metrics").text
            ratios = [
                float(line.rsplit(" ", 1)[1])
                for line in text.splitlines()
                if line.startswith("cachecoh_inference_prefix_hit_ratio{")
            ]
            if any(ratio > 0.5 for ratio in ratios):  # 2 of 3 requests hit ~96 %
                break
            assert time.monotonic() < deadline, text
            time.sleep(0.1)
    assert "cachecoh_inference_kv_cache_usage{" in text
