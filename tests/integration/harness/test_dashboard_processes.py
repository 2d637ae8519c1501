"""The built-in dashboard on the whole embedded stack: every scraped process is shown up or
down, the age of the last applied event is shown, and with the worker stopped the page says
so ("worker DOWN", consumer lag unknown) instead of "consumer lag 0". Checked in headless
Chromium; the screenshot is kept as artifacts/dashboard-worker-down.png."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.harness.stack import Stack, StackOptions, start_stack
from services.paths import PROJECT_ROOT
from tests.integration.gateway.test_dashboard_page import _chromium

pytestmark = pytest.mark.integration
ARTIFACTS = PROJECT_ROOT / "artifacts"


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with start_stack(StackOptions(name="dash", redis="private")) as running:
        yield running


def _data(stack: Stack) -> dict[str, Any]:
    response = httpx.get(f"{stack.gateway_url}/dashboard/data", timeout=10)
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data


def _processes(data: dict[str, Any]) -> dict[str, bool]:
    return {p["name"]: p["up"] for p in data["processes"]}


async def test_worker_up_then_down_is_shown_with_the_last_applied_event(
    stack: Stack, tmp_path: Path
) -> None:
    assert stack.spec_store is not None and stack.worker is not None
    assert _processes(_data(stack)) == {
        "gateway": True,
        "engine": True,
        "worker": True,
        "relay": True,
    }
    assert _data(stack)["coherence"]["last_applied_age_s"] is None  # nothing applied yet

    stack.spec_store.update(
        "iphone_15", {"battery_life.video_playback": {"value": 21, "unit": "h"}}
    )
    deadline = time.monotonic() + 30
    while (age := _data(stack)["coherence"]["last_applied_age_s"]) is None:
        assert time.monotonic() < deadline, "the applied event never showed on the dashboard"
        await asyncio.sleep(0.2)
    assert 0 <= age < 30

    stack.worker.stop()
    data = _data(stack)
    assert _processes(data)["worker"] is False
    assert data["coherence"]["consumer_lag"] is None
    assert data["coherence"]["last_applied_age_s"] is None

    dom = await _chromium(tmp_path / "profile", "--dump-dom", f"{stack.gateway_url}/dashboard")
    assert 'data-loaded="true"' in dom
    assert re.search(r'id="process-worker"[^>]*>DOWN<', dom)
    assert re.search(r'id="process-relay"[^>]*>UP<', dom)
    assert re.search(r'id="consumer-lag"[^>]*>unknown \(worker down\)<', dom)
    assert re.search(r'id="last-applied"[^>]*>unknown \(worker down\)<', dom)

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "dashboard-worker-down.png"
    screenshot.unlink(missing_ok=True)
    await _chromium(
        tmp_path / "profile2",
        f"--screenshot={screenshot}",
        "--window-size=1400,1000",
        f"{stack.gateway_url}/dashboard",
    )
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
