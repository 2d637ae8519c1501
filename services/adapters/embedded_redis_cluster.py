"""A local Redis Cluster: N ``redis-server`` nodes in cluster mode on loopback ports,
joined with ``redis-cli --cluster create`` (no replicas). For tests and checks that the
Lua scripts keep to one slot; production runs a real cluster.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import redis

from services.adapters.embedded_redis import RedisServerProcess


def redis_cli_binary() -> str:
    found = shutil.which("redis-cli")
    if not found:
        raise FileNotFoundError("redis-cli is needed to create a cluster (Debian: redis-tools)")
    return found


@dataclass
class LocalRedisCluster:
    """``nodes`` cluster-mode servers, each in its own directory (nodes.conf, AOF)."""

    nodes: int = 3
    work_dir: Path | None = None
    _servers: list[RedisServerProcess] = field(default_factory=list, init=False, repr=False)
    _owns_work_dir: bool = field(default=False, init=False, repr=False)

    @property
    def ports(self) -> list[int]:
        return [s.port for s in self._servers]

    @property
    def url(self) -> str:
        """A startup node; cluster clients discover the others."""
        if not self._servers:
            raise RuntimeError("cluster not started")
        return f"redis://127.0.0.1:{self._servers[0].port}"

    def start(self, timeout_s: float = 30.0) -> LocalRedisCluster:
        if self.nodes < 3:
            raise ValueError("redis-cli --cluster create needs at least 3 masters")
        if self.work_dir is None:
            self.work_dir = Path(tempfile.mkdtemp(prefix="cachecoh-cluster-"))
            self._owns_work_dir = True
        try:
            for n in range(self.nodes):
                node = RedisServerProcess(data_dir=self.work_dir / f"node-{n}", cluster=True)
                self._servers.append(node.start())
            subprocess.run(  # noqa: S603 - the local redis-cli binary
                [
                    redis_cli_binary(),
                    "--cluster",
                    "create",
                    *(f"127.0.0.1:{p}" for p in self.ports),
                    "--cluster-replicas",
                    "0",
                    "--cluster-yes",
                ],
                check=True,
                capture_output=True,
                timeout=timeout_s,
            )
            self._wait_ok(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ok(self, timeout_s: float) -> None:
        """Every node agrees the cluster is up and all 16384 slots are served."""
        deadline = time.monotonic() + timeout_s
        for port in self.ports:
            client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
            try:
                while True:
                    info = client.cluster("INFO")
                    if (
                        info.get("cluster_state") == "ok"
                        and int(info.get("cluster_slots_ok", 0)) == 16384
                    ):
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"cluster not ok on port {port}: {info}")
                    time.sleep(0.1)
            finally:
                client.close()

    def stop(self) -> None:
        for server in self._servers:
            with contextlib.suppress(Exception):
                server.stop()
        self._servers.clear()
        if self._owns_work_dir and self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None

    def __enter__(self) -> LocalRedisCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
