"""The embedded-stack launcher: it imports in an image without dev-only packages, starts
what its options ask for, and leaves no process or file behind (also when a start fails)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest
from kafka import KafkaAdminClient

from services.harness.stack import StackOptions, StackStartError, start_stack

pytestmark = pytest.mark.integration

DEV_ONLY = ("hypothesis", "psutil", "schemathesis")


def test_the_harness_imports_without_dev_only_packages() -> None:
    # A None entry in sys.modules makes `import name` fail, as in the production image.
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in DEV_ONLY)
    modules = (
        "services.harness.stack",
        "services.cli.dev",
        "services.cli.audit",
        "services.cli.demo",
    )
    code = f"import sys; {blocked}; import {', '.join(modules)}"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
    )
    assert result.returncode == 0, result.stderr


def test_a_broker_and_private_redis_stack_starts_and_stops_whole(tmp_path: Path) -> None:
    options = StackOptions(
        name="harness",
        redis="private",
        redis_aof=True,
        unique_topics=True,
        partitions=2,
        engines=0,
        worker=False,
        relay=False,
        gateway=False,
    )
    with start_stack(options) as stack:
        pids = stack.pids()
        assert set(pids) == {"broker", "redis"}
        assert stack.topic.startswith("harness-") and stack.dlq_topic == f"{stack.topic}.dlq"
        admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap)
        try:
            assert {stack.topic, stack.dlq_topic} <= set(admin.list_topics())
        finally:
            admin.close()
        env = stack.worker_env(CACHECOH_LOG_LEVEL="DEBUG")
        assert env["CACHECOH_REDIS_URL"] == stack.redis_url
        assert env["CACHECOH_CONSUMER_GROUP"] == stack.group
        assert env["CACHECOH_LOG_LEVEL"] == "DEBUG"
        assert stack.redis_client().ping()
        work_dir = stack.work_dir
        assert (work_dir / "redis").is_dir()  # AOF on
    assert not any(psutil.pid_exists(pid) for pid in pids.values())
    assert not work_dir.exists()


def test_a_failed_start_stops_what_it_started_and_keeps_the_logs() -> None:
    options = StackOptions(
        name="harness", redis="private", engines=0, worker=False, relay=False, gateway=True
    )
    with pytest.raises(StackStartError, match="needs an upstream") as failure:
        start_stack(options)
    work_dir = Path(str(failure.value).rsplit("(logs in ", 1)[1].rstrip(")"))
    assert (work_dir / "tansu.log").exists()
    leftovers = [
        p
        for p in psutil.Process().children(recursive=True)
        if p.name() in ("tansu", "redis-server") and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert leftovers == []


def test_two_engines_get_a_router_between_them_and_the_gateway() -> None:
    options = StackOptions(name="harness", broker=False, worker=False, relay=False, engines=2)
    with start_stack(options) as stack:
        assert stack.router is not None and stack.engine_url == stack.router.url
        assert {"gateway", "router", "engine-0", "engine-1"} <= set(stack.metrics_urls())
        api_key = next(iter(stack.api_keys.values()))
        response = httpx.post(
            f"{stack.gateway_url}/v1/chat/completions",
            json={
                "model": "cachecoh-offline",
                "messages": [{"role": "user", "content": "iPhone 15 重量"}],
                "temperature": 0,
            },
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=30,
        )
        assert response.status_code == 200, response.text
        routed = httpx.get(f"{stack.router.url}/metrics", timeout=5).text
        assert "cachecoh_router_requests_total{" in routed
