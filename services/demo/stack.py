"""The embedded stack: every process of the system, started on loopback ports.

Tansu (Kafka protocol), Redis (the local one if it answers, else a private
``redis-server``), SQLite, the offline engine, the coherence worker, the outbox relay and
the gateway. ``close()`` stops all of it and removes the demo's Redis keys.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis

from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.embedded_broker import EmbeddedBroker, free_port
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.business.relay import OutboxRelay
from services.coherence.process import WorkerProcess
from services.core.keys import KeySpace
from services.inference.launcher import ManagedProcess, start_engine, wait_healthy
from services.paths import DEMO_DATA_DIR

log = logging.getLogger(__name__)
TOPIC = "product-spec-updated"
DLQ_TOPIC = "product-spec-updated.dlq"
PARTITIONS = 3
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def _local_redis_answers() -> bool:
    client = redis.Redis.from_url(LOCAL_REDIS, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


@dataclass
class EmbeddedStack:
    """Start with ``start()``; always ``close()`` (also a context manager)."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cachecoh-demo-")))
    tenants: dict[str, str] = field(
        default_factory=lambda: {
            "acme": f"sk-acme-{secrets.token_hex(8)}",
            "globex": f"sk-globex-{secrets.token_hex(8)}",
        }
    )
    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    keys: KeySpace = field(default_factory=lambda: KeySpace(f"demo-{secrets.token_hex(4)}"))
    redis_url: str = ""
    redis_private: bool = False
    gateway_url: str = ""
    engine_url: str = ""
    database_url: str = ""
    broker: EmbeddedBroker | None = None
    _redis: RedisServerProcess | None = None
    _engine: ManagedProcess | None = None
    _gateway: subprocess.Popen[bytes] | None = None
    worker: WorkerProcess | None = None
    _relay_stop: threading.Event = field(default_factory=threading.Event)
    _relay_thread: threading.Thread | None = None
    spec_store: SpecStore | None = None
    audit: AuditLog | None = None

    def start(self, progress: Callable[[str, str], None]) -> EmbeddedStack:
        progress("broker", "starting Tansu (Kafka protocol)")
        self.broker = EmbeddedBroker(log_file=self.workdir / "tansu.log").start()
        ensure_topics(self.broker.bootstrap, [(TOPIC, PARTITIONS), (DLQ_TOPIC, PARTITIONS)])

        if _local_redis_answers():
            self.redis_url = LOCAL_REDIS
            progress("redis", f"using the local Redis (keys under {self.keys.prefix}:*)")
        else:
            self._redis = RedisServerProcess().start()
            self.redis_url, self.redis_private = self._redis.url, True
            progress("redis", f"started a private redis-server on {self._redis.port}")

        self.database_url = f"sqlite:///{self.workdir / 'cachecoh.db'}"
        upgrade(self.database_url)
        self.spec_store = SpecStore(
            make_engine(self.database_url), topic=TOPIC, source="cachecoh/demo"
        )
        self.spec_store.seed(load_demo_catalog(DEMO_DATA_DIR))
        self.audit = AuditLog(self.spec_store.engine)
        progress("database", "SQLite spec store seeded with the demo catalog")

        self._engine = start_engine("engine", {"log_level": "warning"}, log_dir=self.workdir)
        self.engine_url = self._engine.url
        common = {
            "CACHECOH_KAFKA_BOOTSTRAP": self.broker.bootstrap,
            "CACHECOH_TOPIC": TOPIC,
            "CACHECOH_DLQ_TOPIC": DLQ_TOPIC,
            "CACHECOH_TOPIC_PARTITIONS": str(PARTITIONS),
            "CACHECOH_REDIS_URL": self.redis_url,
            "CACHECOH_REDIS_PREFIX": self.keys.prefix,
            "CACHECOH_DATABASE_URL": self.database_url,
            "CACHECOH_LOG_LEVEL": "WARNING",
        }
        self.worker = WorkerProcess(
            {
                **common,
                "CACHECOH_CONSUMER_GROUP": f"coherence-{self.keys.prefix}",
                "CACHECOH_SESSION_TIMEOUT_S": "6",
                "CACHECOH_REBALANCE_TIMEOUT_S": "6",
                "CACHECOH_COMMIT_INTERVAL_S": "0.1",
                "CACHECOH_SEED_SPEC_STORE": "true",
            },
            log_file=self.workdir / "worker.log",
        ).start()

        port = free_port()
        self.gateway_url = f"http://127.0.0.1:{port}"
        gateway_env = {
            **os.environ,
            **common,
            "CACHECOH_HOST": "127.0.0.1",
            "CACHECOH_PORT": str(port),
            "CACHECOH_UPSTREAM_URL": self.engine_url,
            "CACHECOH_API_KEYS": json.dumps({key: tenant for tenant, key in self.tenants.items()}),
            "CACHECOH_ADMIN_TOKEN": self.admin_token,
            "CACHECOH_REQUEST_KEY_SECRET": secrets.token_hex(32),
            "CACHECOH_CACHE_SALT_KEY": secrets.token_hex(32),
            "CACHECOH_DASHBOARD_METRICS_URLS": f"http://127.0.0.1:{self.worker.metrics_port}/metrics",
        }
        gateway_log = (self.workdir / "gateway.log").open("ab")
        self._gateway = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "gateway"],
            env=gateway_env,
            stdout=gateway_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        progress("engine+gateway", "offline engine and gateway starting")
        wait_healthy([self._engine], timeout=60)
        wait_healthy(
            [
                ManagedProcess(
                    "gateway", self.gateway_url, self._gateway, self.workdir / "gateway.log"
                )
            ],
            timeout=90,
        )
        progress("engine+gateway", f"gateway on {self.gateway_url}, engine on {self.engine_url}")

        publisher = SpecUpdatePublisher(self.broker.bootstrap, topic=TOPIC)
        relay = OutboxRelay(self.spec_store, publisher)

        def run_relay() -> None:
            try:
                relay.run_forever(0.02, self._relay_stop)
            finally:
                publisher.close()

        self._relay_thread = threading.Thread(target=run_relay, name="outbox-relay", daemon=True)
        self._relay_thread.start()
        progress("worker", "coherence worker joining its consumer group")
        self.worker.wait_ready(timeout_s=90)
        progress("worker", "coherence worker ready; outbox relay running")
        return self

    def close(self) -> None:
        self._relay_stop.set()
        if self._relay_thread is not None:
            self._relay_thread.join(timeout=15)
        if self._gateway is not None and self._gateway.poll() is None:
            self._gateway.terminate()
            try:
                self._gateway.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._gateway.kill()
        if self._engine is not None:
            self._engine.stop()
        if self.worker is not None:
            self.worker.stop()
        if self.broker is not None:
            self.broker.stop()
        if self._redis is not None:
            self._redis.stop()
        elif self.redis_url:
            self._delete_demo_keys()

    def _delete_demo_keys(self) -> None:
        # Teardown only: drop what the demo wrote to the shared local Redis.
        client = redis.Redis.from_url(self.redis_url)
        with contextlib.suppress(redis.RedisError):
            batch = list(client.scan_iter(match=f"{self.keys.prefix}:*", count=1000))
            for start in range(0, len(batch), 1000):
                client.unlink(*batch[start : start + 1000])
        client.close()
