"""Run the coherence worker as a child process (demo, benchmarks, fault tests).

The child is the real ``cachecoh worker coherence`` entry point; this module only
starts it with settings in its environment, waits until it owns partitions, and
stops it (gracefully, or with SIGKILL to simulate a crash).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from services.adapters.embedded_broker import free_port


def _metric(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


@dataclass
class WorkerProcess:
    """One coherence worker child process; ``env`` holds its ``CACHECOH_*`` settings."""

    env: Mapping[str, str]
    log_file: Path | None = None
    metrics_port: int = 0
    #: run from this source tree (its ``services`` package), e.g. an older commit to compare
    source_tree: Path | None = None
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("worker not started")
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> WorkerProcess:
        if not self.metrics_port:
            self.metrics_port = free_port()
        env = {
            **os.environ,
            **self.env,
            "CACHECOH_METRICS_PORT": str(self.metrics_port),
            "CACHECOH_METRICS_HOST": "127.0.0.1",
        }
        out = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL  # noqa: SIM115
        self._process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "worker", "coherence"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=self.source_tree,
        )
        return self

    def metrics_text(self) -> str:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=2) as resp:
            return str(resp.read().decode())

    def metric(self, name: str) -> float | None:
        try:
            return _metric(self.metrics_text(), name)
        except OSError:
            return None

    def wait_ready(self, timeout_s: float = 90.0) -> None:
        """Block until the worker has partitions assigned (its consumer joined)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.running:
                raise RuntimeError(
                    f"worker exited with {self._process and self._process.returncode}"
                )
            assigned = self.metric("cachecoh_coherence_assigned_partitions")
            if assigned and assigned > 0:
                return
            time.sleep(0.2)
        raise TimeoutError(f"worker not ready after {timeout_s}s")

    def kill(self) -> None:
        """SIGKILL: a crash with no chance to commit or flush anything."""
        if self.running:
            os.killpg(self.pid, signal.SIGKILL)
            assert self._process is not None
            self._process.wait(timeout=10)

    def stop(self, timeout_s: float = 20.0) -> None:
        """SIGTERM and wait; SIGKILL if it does not stop in time."""
        if not self.running:
            return
        assert self._process is not None
        os.killpg(self.pid, signal.SIGTERM)
        try:
            self._process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
