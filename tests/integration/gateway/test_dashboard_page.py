"""The built-in /dashboard page in headless Chromium: it loads, shows live numbers, and
the run keeps a screenshot (artifacts/dashboard.png)."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from services.inference.launcher import ManagedProcess
from services.paths import PROJECT_ROOT
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import chat_body

pytestmark = pytest.mark.integration
ARTIFACTS = PROJECT_ROOT / "artifacts"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--virtual-time-budget=6000",
)


async def _chromium(profile: Path, *args: str) -> str:
    binary = shutil.which("chromium")
    assert binary, "chromium missing: make tools installs it"
    process = await asyncio.create_subprocess_exec(
        binary,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 90)
    assert process.returncode == 0
    return out.decode()


async def test_dashboard_shows_live_numbers_in_chromium(
    gateway_factory: GatewayFactory, engine: ManagedProcess, tmp_path: Path
) -> None:
    gateway = await gateway_factory(engine.url)
    async with gateway.client() as client:
        for question in ("iPhone 16 重量", "iPhone 16 重量", "iPhone 16 重量", "iPhone 16 有多重"):
            assert (
                await client.post("/v1/chat/completions", json=chat_body(question))
            ).status_code == 200
        data = (await client.get("/dashboard/data")).json()
    assert data["layers"]["request"]["hits"] == 2
    assert data["layers"]["semantic"]["hits"] == 1
    assert data["costs"]["savings_rate"] > 0

    dom = await _chromium(tmp_path / "profile", "--dump-dom", f"{gateway.url}/dashboard")
    assert 'data-loaded="true"' in dom
    assert re.search(r'id="hits-request"[^>]*>2 hits<', dom)
    assert re.search(r'id="hits-semantic"[^>]*>1 hits<', dom)
    assert re.search(r'id="switch-semantic"[^>]*>ON<', dom)
    assert re.search(r'<span id="error"></span>', dom)

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "dashboard.png"
    screenshot.unlink(missing_ok=True)
    await _chromium(
        tmp_path / "profile2",
        f"--screenshot={screenshot}",
        "--window-size=1400,1100",
        f"{gateway.url}/dashboard",
    )
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
