"""``cachecoh dev up`` as a user runs it: a subprocess that prints its URLs and keys, serves
a real request through the gateway (answered by the engine, then from the cache), applies
a spec change through outbox, relay and worker, and on SIGINT stops every child process."""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil
import pytest

from services.cli.dev import READY_LINE

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT_S = 240.0


def _read_until_ready(process: subprocess.Popen[str]) -> str:
    # A thread reads: select() on a buffered text pipe misses lines already buffered.
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    out: list[str] = []
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            assert process.poll() is None, "".join(out)
            continue
        out.append(line)
        if READY_LINE in line:
            return "".join(out)
    raise AssertionError("dev up never said it was up:\n" + "".join(out))


def _field(text: str, name: str) -> str:
    found = re.search(rf"^{re.escape(name)}\s+(\S+)", text, re.MULTILINE)
    assert found, f"{name!r} missing from:\n{text}"
    return found.group(1)


def _ask(gateway: str, api_key: str) -> httpx.Response:
    body = {
        "model": "cachecoh-offline",
        "messages": [{"role": "user", "content": "iPhone 15 看视频能用多久"}],
        "temperature": 0,
        "max_tokens": 64,
    }
    return httpx.post(
        f"{gateway}/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=30,
    )


def test_dev_up_serves_requests_and_stops_every_child_on_sigint(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    process = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "dev", "up", "--work-dir", str(tmp_path / "dev")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    children: list[psutil.Process] = []
    try:
        text = _read_until_ready(process)
        gateway = _field(text, "gateway")
        api_key = _field(text, "api key acme")
        assert _field(text, "dashboard") == f"{gateway}/dashboard"
        for name in ("engine", "metrics worker", "metrics relay", "admin token", "broker"):
            _field(text, name)
        children = psutil.Process(process.pid).children(recursive=True)
        commands = [" ".join(c.cmdline()) for c in children]
        for expected in ("tansu", "services.inference.engine", "worker coherence", "gateway"):
            assert any(expected in command for command in commands), commands

        first = _ask(gateway, api_key)
        assert first.status_code == 200, first.text
        assert first.headers["x-cache"].startswith("MISS")
        assert "20 h" in first.json()["choices"][0]["message"]["content"]
        assert _ask(gateway, api_key).headers["x-cache"].startswith("HIT")

        # The printed next step, run as printed: the change reaches the cache.
        export = next(line for line in text.splitlines() if line.startswith("export "))
        cli_env = {**env}
        for assignment in shlex.split(export.removeprefix("export ")):
            name, _, value = assignment.partition("=")
            cli_env[name] = value
        update = next(line for line in text.splitlines() if line.startswith("cachecoh specs"))
        args = shlex.split(update)[1:]
        subprocess.run(
            [sys.executable, "-m", "services.cli", *args], env=cli_env, cwd=ROOT, check=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            answer = _ask(gateway, api_key)
            if "22 h" in answer.json()["choices"][0]["message"]["content"]:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the spec change never reached the gateway's answers")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=90)
    assert process.returncode == 0
    alive = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], [c.cmdline()[:3] for c in alive]


def test_dev_up_stops_every_child_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "dev", "up", "--work-dir", str(tmp_path / "dev")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    try:
        _read_until_ready(process)
        children = psutil.Process(process.pid).children(recursive=True)
        assert children
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=90)
    assert process.returncode == 0
    alive = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], [c.cmdline()[:3] for c in alive]
