"""Start engines and routers as child processes on free local ports (benchmarks, tests,
the embedded demo). Each child gets its settings as a JSON argument, so nothing here
touches the environment."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from services.adapters.embedded_broker import free_port
from services.core.errors import CachecohError


class LaunchError(CachecohError, RuntimeError):
    def __init__(self, name: str, reason: str, log_path: Path | None) -> None:
        self.name = name
        self.reason = reason
        self.log_path = log_path
        tail = ""
        if log_path is not None and log_path.exists():
            tail = "\n" + log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        super().__init__(f"{name}: {reason}{tail}")


@dataclass
class ManagedProcess:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path | None
    _log: IO[bytes] | None = None

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: the replica dies without closing its connections cleanly."""
        if self.alive:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self._close_log()

    def stop(self, timeout: float = 10.0) -> None:
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


def _spawn(
    name: str, module: str, overrides: dict[str, Any], port: int, log_dir: Path | None
) -> ManagedProcess:
    log_path = log_dir / f"{name}.log" if log_dir is not None else None
    log: IO[bytes] | None = log_path.open("wb") if log_path is not None else None
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", module, json.dumps(overrides)],
        stdin=subprocess.DEVNULL,
        stdout=log if log is not None else subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    return ManagedProcess(name, f"http://127.0.0.1:{port}", process, log_path, log)


def start_engine(
    name: str,
    settings: Mapping[str, Any] | None = None,
    *,
    log_dir: Path | None = None,
    port: int | None = None,
) -> ManagedProcess:
    """An offline engine; ``settings`` are ``EngineSettings`` fields."""
    port = port or free_port()
    overrides = {"host": "127.0.0.1", "port": port, **(settings or {})}
    return _spawn(name, "services.inference.engine", overrides, port, log_dir)


def start_router(
    name: str,
    upstreams: list[str],
    settings: Mapping[str, Any] | None = None,
    *,
    log_dir: Path | None = None,
    port: int | None = None,
) -> ManagedProcess:
    """A router; ``settings`` are ``RouterSettings`` fields."""
    port = port or free_port()
    overrides = {"host": "127.0.0.1", "port": port, "upstreams": upstreams, **(settings or {})}
    return _spawn(name, "services.inference.router", overrides, port, log_dir)


def wait_healthy(processes: list[ManagedProcess], timeout: float = 30.0) -> None:
    """Block until every process answers ``GET /health`` with 200."""
    deadline = time.monotonic() + timeout
    pending = list(processes)
    with httpx.Client(timeout=1.0) as client:
        while pending:
            for managed in list(pending):
                if not managed.alive:
                    raise LaunchError(managed.name, "exited during start-up", managed.log_path)
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(f"{managed.url}/health").status_code == 200:
                        pending.remove(managed)
            if pending and time.monotonic() > deadline:
                raise LaunchError(
                    pending[0].name, f"not healthy after {timeout}s", pending[0].log_path
                )
            if pending:
                time.sleep(0.1)
