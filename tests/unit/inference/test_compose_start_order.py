"""compose.yaml's start order: what each service waits for, per profile (read with pyyaml).

vLLM takes minutes to load a model, so nothing on the request path may wait for the
router to be *healthy*: the gateway starts once the router has started (it fails open),
and the router's own health check is its readiness with vLLM's start period.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from services.paths import PROJECT_ROOT

PROFILES = ("gpu", "offline")


def _seconds(duration: str) -> int:
    total = 0
    for amount, unit in re.findall(r"(\d+)([hms])", duration):
        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    document = yaml.safe_load((PROJECT_ROOT / "compose.yaml").read_text(encoding="utf-8"))
    result: dict[str, Any] = document["services"]
    return result


def _active(services: dict[str, Any], profile: str) -> dict[str, Any]:
    """Services compose starts with ``--profile <profile>`` (no profile: always)."""
    return {
        name: spec
        for name, spec in services.items()
        if not spec.get("profiles") or profile in spec["profiles"]
    }


def _depends(spec: dict[str, Any]) -> dict[str, str]:
    raw = spec.get("depends_on") or {}
    if isinstance(raw, list):
        return dict.fromkeys(raw, "service_started")
    return {name: cond.get("condition", "service_started") for name, cond in raw.items()}


def _start_order(active: dict[str, Any]) -> list[str]:
    """A topological order over depends_on; fails on a cycle or a missing dependency."""
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in order:
            return
        assert name in active, f"depends on {name}, which this profile does not start"
        assert name not in visiting, f"dependency cycle through {name}"
        visiting.add(name)
        for dependency in _depends(active[name]):
            visit(dependency)
        visiting.discard(name)
        order.append(name)

    for name in active:
        visit(name)
    return order


@pytest.mark.parametrize("profile", PROFILES)
def test_every_dependency_is_started_by_the_same_profile(
    services: dict[str, Any], profile: str
) -> None:
    active = _active(services, profile)
    order = _start_order(active)
    for name, spec in active.items():
        for dependency, condition in _depends(spec).items():
            assert order.index(dependency) < order.index(name)
            if condition == "service_healthy":
                assert "healthcheck" in active[dependency], (
                    f"{name} waits for {dependency} to be healthy, which has no health check"
                )


@pytest.mark.parametrize("profile", PROFILES)
def test_the_request_path_never_waits_for_the_replicas(
    services: dict[str, Any], profile: str
) -> None:
    active = _active(services, profile)
    assert "inference-router" in active
    replicas = {"gpu": ("vllm-0", "vllm-1"), "offline": ("engine-0", "engine-1")}[profile]
    for replica in replicas:
        assert replica in active
    gateway = _depends(active["gateway"])
    assert gateway["inference-router"] == "service_started"
    # Nothing waits for a replica or for the router's readiness.
    for name, spec in active.items():
        for dependency, condition in _depends(spec).items():
            if dependency in replicas or dependency == "inference-router":
                assert condition == "service_started", (name, dependency, condition)


def test_router_readiness_check_has_vllms_start_period(services: dict[str, Any]) -> None:
    router = services["inference-router"]["healthcheck"]
    vllm = services["vllm-0"]["healthcheck"]
    assert "/ready" in " ".join(router["test"])
    assert "/health" in " ".join(vllm["test"])
    assert _seconds(router["start_period"]) >= _seconds(vllm["start_period"]) == 900


@pytest.mark.parametrize("profile", PROFILES)
def test_router_kv_event_endpoints_pair_with_its_upstreams(
    services: dict[str, Any], profile: str
) -> None:
    env = services["inference-router"]["environment"]
    upstreams = re.search(r":-([^}]*)\}", env["CACHECOH_ROUTER_UPSTREAMS"])
    endpoints = re.search(r":-([^}]*)\}", env["CACHECOH_ROUTER_KV_EVENT_ENDPOINTS"])
    assert upstreams and endpoints
    hosts = [url.split("//")[1].split(":")[0] for url in upstreams.group(1).split(",")]
    event_hosts = [url.split("//")[1].split(":")[0] for url in endpoints.group(1).split(",")]
    assert hosts == event_hosts
    command = " ".join(services["vllm-0"]["command"])
    assert '"endpoint":"tcp://*:5557"' in command
    assert '"topic":"kv-events"' in command
    assert env["CACHECOH_ROUTER_KV_EVENTS_TOPIC"] == "kv-events"
