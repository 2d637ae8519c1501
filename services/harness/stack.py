"""The embedded stack: the system's processes on loopback ports, started and stopped here.

One launcher for every caller: the demo and ``cachecoh dev up`` (everything), the checks
(private Redis with its write history, engine behind the upstream ledger, gateway; no
broker) and the fault rig (broker, private Redis with AOF, database; workers started on
demand with ``new_worker``). ``StackOptions`` says what to start; ``start_stack`` starts
it in dependency order and stops what it started if any step fails; ``Stack.close``
stops everything and removes what the run left behind.

Children run in their own sessions: a Ctrl-C in the terminal reaches only the parent,
which stops them in order (gateway first, broker and Redis last).
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import IO, Any, Literal
from wsgiref.simple_server import WSGIServer

import redis
from sqlalchemy import Engine

from services.adapters.demo_catalog import load_demo_catalog
from services.adapters.embedded_broker import EmbeddedBroker, free_port
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.sql.audit import AuditLog
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.coherence.process import WorkerProcess
from services.core.errors import CachecohError
from services.core.keys import KeySpace
from services.inference.launcher import ManagedProcess, wait_healthy
from services.paths import DEMO_DATA_DIR

log = logging.getLogger(__name__)

TOPIC = "product-spec-updated"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
GATEWAY_START_TIMEOUT_S = 180.0
WORKER_READY_TIMEOUT_S = 120.0

#: ``local_or_private``: the local Redis if it answers (keys under the run's prefix,
#: deleted at close), else a private ``redis-server``; ``private``: always our own.
RedisChoice = Literal["local_or_private", "private"]
Progress = Callable[[str, str], None]


class StackStartError(CachecohError):
    """A process of the embedded stack did not come up (the message names it)."""


def _no_progress(step: str, message: str) -> None:
    log.debug("%s: %s", step, message)


@dataclass(frozen=True, slots=True)
class StackOptions:
    """What to start. The defaults are the whole system, as the demo runs it."""

    #: Names the work directory, the Redis key prefix, the consumer group (and topics).
    name: str = "stack"
    work_dir: Path | None = None  # default: a temp directory, removed at close
    keep_work_dir: bool = False
    log_level: str = "WARNING"

    broker: bool = True
    partitions: int = 3
    #: Topics named after the run (``<name>-<run id>``), not ``product-spec-updated``.
    unique_topics: bool = False

    redis: RedisChoice = "local_or_private"
    #: Private Redis with AOF persistence: a restart keeps generations and entries.
    redis_aof: bool = False
    #: Private Redis whose AOF is never rewritten, so written-then-deleted data stays on
    #: disk for the at-rest scan (implies ``redis_aof`` and ``redis="private"``).
    redis_history: bool = False

    database_url: str | None = None  # default: a SQLite file in the work directory
    seed_catalog: bool = True
    event_source: str = "cachecoh/demo"

    #: Offline engine replicas (0: none); more than one get a router in front.
    engines: int = 1
    engine_settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    router_policy: str = "prefix_affinity"
    #: Put the checks' upstream ledger between gateway and engine (it records every call).
    upstream_ledger: bool = False

    worker: bool = True
    #: Extra ``CACHECOH_*`` variables for every worker (timeouts, log level, ...).
    worker_env: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType(
            {
                "CACHECOH_SESSION_TIMEOUT_S": "6",
                "CACHECOH_REBALANCE_TIMEOUT_S": "6",
                "CACHECOH_COMMIT_INTERVAL_S": "0.1",
            }
        )
    )
    #: At close, workers get SIGTERM and time to commit (``graceful``) or SIGKILL
    #: (``kill``: fault runs, whose workers may be paused or half-dead by then).
    stop_workers: Literal["graceful", "kill"] = "graceful"
    relay: bool = True
    relay_poll_s: float = 0.02

    gateway: bool = True
    tenants: tuple[str, ...] = ("acme", "globex")
    #: The tenant id the gateway gives each tenant's API key (default: the same id).
    gateway_tenants: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Extra ``GatewaySettings`` fields (bucket, breaker, ...).
    gateway_settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    gateway_log_level: str | None = None  # default: log_level

    @property
    def private_redis(self) -> bool:
        return self.redis == "private" or self.redis_aof or self.redis_history


@dataclass
class Stack:
    """A running stack; ``close()`` it (or use it as a context manager)."""

    options: StackOptions
    work_dir: Path
    run_id: str
    keys: KeySpace
    topic: str
    dlq_topic: str
    group: str
    database_url: str
    api_keys: dict[str, str]
    admin_token: str
    request_key_secret: str
    cache_salt_key: str
    broker: EmbeddedBroker | None = None
    redis_server: RedisServerProcess | None = None
    redis_url: str = ""
    spec_store: SpecStore | None = None
    audit: AuditLog | None = None
    engines: list[ManagedProcess] = field(default_factory=list)
    router: ManagedProcess | None = None
    ledger: ManagedProcess | None = None
    gateway: ManagedProcess | None = None
    worker: WorkerProcess | None = None
    relay_metrics_port: int = 0
    keep_work_dir: bool = False  # set on failure: the logs explain it
    _workers: list[WorkerProcess] = field(default_factory=list)
    _sql: Engine | None = None
    _relay_stop: threading.Event = field(default_factory=threading.Event)
    _relay_thread: threading.Thread | None = None
    _relay_metrics: WSGIServer | None = None

    # -- what callers read ------------------------------------------------------------

    @property
    def bootstrap(self) -> str:
        if self.broker is None:
            raise StackStartError("this stack runs no broker")
        return self.broker.bootstrap

    @property
    def gateway_url(self) -> str:
        if self.gateway is None:
            raise StackStartError("this stack runs no gateway")
        return self.gateway.url

    @property
    def engine_url(self) -> str:
        """Where inference is served: the router if there is one, else the engine."""
        if self.router is not None:
            return self.router.url
        if not self.engines:
            raise StackStartError("this stack runs no engine")
        return self.engines[0].url

    @property
    def redis_prefix(self) -> str:
        return self.keys.prefix

    @property
    def sql_engine(self) -> Engine:
        if self._sql is None:
            self._sql = make_engine(self.database_url)
        return self._sql

    def metrics_urls(self) -> dict[str, str]:
        """Every process's ``/metrics`` endpoint, by the name the dashboard shows."""
        urls: dict[str, str] = {}
        if self.gateway is not None:
            urls["gateway"] = f"{self.gateway.url}/metrics"
        if self.worker is not None:
            urls["worker"] = f"http://127.0.0.1:{self.worker.metrics_port}/metrics"
        if self.relay_metrics_port:
            urls["relay"] = f"http://127.0.0.1:{self.relay_metrics_port}/metrics"
        if self.router is not None:
            urls["router"] = f"{self.router.url}/metrics"
        for index, engine in enumerate(self.engines):
            urls[f"engine-{index}" if len(self.engines) > 1 else "engine"] = f"{engine.url}/metrics"
        return urls

    def redis_client(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url)

    def log_paths(self) -> dict[str, Path]:
        """The log file of every child process, by process name."""
        found: dict[str, Path | None] = {
            managed.name: managed.log_path
            for managed in (*self.engines, self.router, self.ledger, self.gateway)
            if managed is not None
        }
        for worker in self._workers:
            found[worker.log_file.stem if worker.log_file else "worker"] = worker.log_file
        return {name: path for name, path in found.items() if path is not None}

    def pids(self) -> dict[str, int]:
        """The process id of every running child (for memory figures, crash tests)."""
        out: dict[str, int] = {}
        for managed in (*self.engines, self.router, self.ledger, self.gateway):
            if managed is not None and managed.alive:
                out[managed.name] = managed.process.pid
        for worker in self._workers:
            if worker.running:
                out[worker.log_file.stem if worker.log_file else "worker"] = worker.pid
        for name, owned in (("broker", self.broker), ("redis", self.redis_server)):
            if owned is not None and owned.running:
                out[name] = owned.pid
        return out

    # -- workers and publishers ---------------------------------------------------------

    def worker_env(self, **overrides: str) -> dict[str, str]:
        """The ``CACHECOH_*`` environment of a coherence worker on this stack."""
        return {
            "CACHECOH_KAFKA_BOOTSTRAP": self.bootstrap,
            "CACHECOH_TOPIC": self.topic,
            "CACHECOH_DLQ_TOPIC": self.dlq_topic,
            "CACHECOH_TOPIC_PARTITIONS": str(self.options.partitions),
            "CACHECOH_CONSUMER_GROUP": self.group,
            "CACHECOH_REDIS_URL": self.redis_url,
            "CACHECOH_REDIS_PREFIX": self.keys.prefix,
            "CACHECOH_DATABASE_URL": self.database_url,
            "CACHECOH_STATE_DIR": str(self.work_dir / "faust"),
            "CACHECOH_LOG_LEVEL": self.options.log_level,
            **self.options.worker_env,
            **overrides,
        }

    def new_worker(self, name: str, **overrides: str) -> WorkerProcess:
        """A worker (not started yet); the stack stops it at close whatever happens."""
        worker = WorkerProcess(self.worker_env(**overrides), log_file=self.work_dir / f"{name}.log")
        self._workers.append(worker)
        return worker

    def publisher(self) -> SpecUpdatePublisher:
        return SpecUpdatePublisher(self.bootstrap, topic=self.topic)

    # -- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        """Stop everything, front to back; safe to call twice and after a failed start."""
        self._stop_relay()
        for managed in (self.gateway, self.ledger, self.router, *reversed(self.engines)):
            if managed is not None:
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    managed.stop()
        for worker in self._workers:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                if self.options.stop_workers == "kill":
                    worker.kill()
                else:
                    worker.stop()
        self._workers.clear()
        if self._sql is not None:
            self._sql.dispose()
            self._sql = None
        if self.broker is not None:
            self.broker.stop()
        if self.redis_server is not None:
            self.redis_server.stop()
        elif self.redis_url:
            self._delete_run_keys()
        keep = self.keep_work_dir or self.options.keep_work_dir
        if not keep and self.options.work_dir is None:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> Stack:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self.keep_work_dir = True
        self.close()

    def _stop_relay(self) -> None:
        self._relay_stop.set()
        if self._relay_thread is not None:
            self._relay_thread.join(timeout=15)
            self._relay_thread = None
        if self._relay_metrics is not None:
            self._relay_metrics.shutdown()
            self._relay_metrics.server_close()
            self._relay_metrics = None

    def _delete_run_keys(self) -> None:
        # Teardown only: drop what this run wrote to the shared local Redis.
        client = self.redis_client()
        with contextlib.suppress(redis.RedisError):
            batch = list(client.scan_iter(match=f"{self.keys.prefix}:*", count=1000))
            for start in range(0, len(batch), 1000):
                client.unlink(*batch[start : start + 1000])
        client.close()


def _local_redis_answers() -> bool:
    client = redis.Redis.from_url(LOCAL_REDIS, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def _keep_history(server: RedisServerProcess) -> None:
    client = redis.Redis.from_url(server.url)
    try:
        # fsync once a second (the file is read through the page cache anyway), and never
        # rewrite the append-only file: a rewrite would drop the history the scan reads.
        client.config_set("appendfsync", "everysec")
        client.config_set("auto-aof-rewrite-percentage", 0)
    finally:
        client.close()


def _spawn(
    name: str, module: str, settings: Mapping[str, Any], port: int, work: Path
) -> ManagedProcess:
    """``python -m <module> '<settings JSON>'`` in its own session, logging to a file."""
    log_path = work / f"{name}.log"
    log_file: IO[bytes] = log_path.open("wb")
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", module, json.dumps(dict(settings))],
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return ManagedProcess(name, f"http://127.0.0.1:{port}", process, log_path, log_file)


def _new_stack(options: StackOptions) -> Stack:
    work_dir = options.work_dir or Path(tempfile.mkdtemp(prefix=f"cachecoh-{options.name}-"))
    work_dir.mkdir(parents=True, exist_ok=True)
    run_id = secrets.token_hex(4)
    run_name = f"{options.name}-{run_id}"
    topic = run_name if options.unique_topics else TOPIC
    return Stack(
        options=options,
        work_dir=work_dir,
        run_id=run_id,
        keys=KeySpace(run_name),
        topic=topic,
        dlq_topic=f"{topic}.dlq",
        group=run_name,
        database_url=options.database_url or f"sqlite:///{work_dir / 'cachecoh.db'}",
        api_keys={tenant: f"sk-{tenant}-{secrets.token_hex(12)}" for tenant in options.tenants},
        admin_token=secrets.token_urlsafe(24),
        request_key_secret=secrets.token_hex(32),
        cache_salt_key=secrets.token_hex(32),
    )


def _start_redis(stack: Stack, progress: Progress) -> None:
    options = stack.options
    if not options.private_redis and _local_redis_answers():
        stack.redis_url = LOCAL_REDIS
        progress("redis", f"using the local Redis (keys under {stack.keys.prefix}:*)")
        return
    persistent = options.redis_aof or options.redis_history
    stack.redis_server = RedisServerProcess(
        data_dir=stack.work_dir / "redis" if persistent else None
    ).start()
    if options.redis_history:
        _keep_history(stack.redis_server)
    stack.redis_url = stack.redis_server.url
    progress("redis", f"private redis-server on port {stack.redis_server.port}")


def _start_database(stack: Stack, progress: Progress) -> None:
    options = stack.options
    upgrade(stack.database_url)
    if not (options.seed_catalog or options.relay):
        progress("database", "migrated")
        return
    stack.spec_store = SpecStore(stack.sql_engine, topic=stack.topic, source=options.event_source)
    stack.audit = AuditLog(stack.sql_engine)
    if options.seed_catalog:
        stack.spec_store.seed(load_demo_catalog(DEMO_DATA_DIR))
    progress("database", "migrated" + (", demo catalog seeded" if options.seed_catalog else ""))


def _start_inference(stack: Stack) -> str | None:
    """Spawn engines (and router, ledger); returns the gateway's upstream URL."""
    options = stack.options
    for index in range(options.engines):
        port = free_port()
        name = f"engine-{index}" if options.engines > 1 else "engine"
        settings = {"host": "127.0.0.1", "port": port, **options.engine_settings}
        stack.engines.append(
            _spawn(name, "services.inference.engine", settings, port, stack.work_dir)
        )
    if not stack.engines:
        return None
    upstream = stack.engines[0].url
    if len(stack.engines) > 1:
        port = free_port()
        settings = {
            "host": "127.0.0.1",
            "port": port,
            "upstreams": [engine.url for engine in stack.engines],
            "policy": options.router_policy,
        }
        stack.router = _spawn("router", "services.inference.router", settings, port, stack.work_dir)
        upstream = stack.router.url
    if options.upstream_ledger:
        port = free_port()
        settings = {"upstream_url": upstream, "port": port}
        module = "services.harness.checks.upstream_ledger"
        stack.ledger = _spawn("upstream_ledger", module, settings, port, stack.work_dir)
        upstream = stack.ledger.url
    return upstream


def _start_relay(stack: Stack) -> None:
    # In-process: the relay is a loop over the outbox; its /metrics binds loopback only.
    from prometheus_client import start_http_server

    from services.business.relay import OutboxRelay

    assert stack.spec_store is not None
    publisher = SpecUpdatePublisher(stack.bootstrap, topic=stack.topic)
    relay = OutboxRelay(stack.spec_store, publisher)
    stack.relay_metrics_port = free_port()
    stack._relay_metrics, _ = start_http_server(
        stack.relay_metrics_port, addr="127.0.0.1", registry=relay.metrics.registry
    )

    def run() -> None:
        try:
            relay.run_forever(stack.options.relay_poll_s, stack._relay_stop)
        finally:
            publisher.close()

    stack._relay_thread = threading.Thread(target=run, name="outbox-relay", daemon=True)
    stack._relay_thread.start()


def _gateway_settings(stack: Stack, upstream: str, port: int) -> dict[str, Any]:
    options = stack.options
    # The gateway reads its own metrics and its upstream's (engine, router or ledger) anyway.
    sources = {
        name: url for name, url in stack.metrics_urls().items() if name in ("worker", "relay")
    }
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "upstream_url": upstream,
        "api_keys": json.dumps(
            {key: options.gateway_tenants.get(t, t) for t, key in stack.api_keys.items()}
        ),
        "admin_token": stack.admin_token,
        "request_key_secret": stack.request_key_secret,
        "cache_salt_key": stack.cache_salt_key,
        "redis_url": stack.redis_url,
        "redis_prefix": stack.keys.prefix,
        "database_url": stack.database_url,
        "topic": stack.topic,
        "dlq_topic": stack.dlq_topic,
        "log_level": options.gateway_log_level or options.log_level,
        "dashboard_metrics_urls": ",".join(f"{name}={url}" for name, url in sources.items()),
        # Without a coherence worker nothing sets the replica lease, and a guarded gateway
        # would serve nothing: stacks without one (the checks) run the gateway unguarded.
        "replica_guard": options.worker,
    }
    if stack.broker is not None:
        settings["kafka_bootstrap"] = stack.broker.bootstrap
    return {**settings, **options.gateway_settings}


def _start(stack: Stack, progress: Progress) -> None:
    options = stack.options
    if options.broker:
        progress("broker", "starting Tansu (Kafka protocol)")
        stack.broker = EmbeddedBroker(log_file=stack.work_dir / "tansu.log").start()
        ensure_topics(
            stack.broker.bootstrap,
            [(stack.topic, options.partitions), (stack.dlq_topic, options.partitions)],
        )
    _start_redis(stack, progress)
    _start_database(stack, progress)

    upstream = _start_inference(stack)
    if options.worker:
        progress("worker", "coherence worker starting")
        stack.worker = stack.new_worker("worker").start()
    if options.relay:
        if stack.broker is None:
            raise StackStartError("the outbox relay needs the broker (StackOptions.broker)")
        _start_relay(stack)
    if options.gateway:
        if upstream is None:
            raise StackStartError("the gateway needs an upstream (StackOptions.engines >= 1)")
        port = free_port()
        settings = _gateway_settings(stack, upstream, port)
        stack.gateway = _spawn("gateway", "services.gateway", settings, port, stack.work_dir)

    upstreams = [m for m in (*stack.engines, stack.router, stack.ledger) if m is not None]
    if upstreams:
        progress("engine", "waiting for " + ", ".join(m.name for m in upstreams))
        wait_healthy(upstreams, timeout=60)
    if stack.gateway is not None:
        progress("gateway", "waiting for the gateway")
        wait_healthy([stack.gateway], timeout=GATEWAY_START_TIMEOUT_S)
    if stack.worker is not None:
        progress("worker", "coherence worker joining its consumer group")
        stack.worker.wait_ready(timeout_s=WORKER_READY_TIMEOUT_S)
    progress("ready", "every process is up")


def start_stack(options: StackOptions, progress: Progress | None = None) -> Stack:
    """Start what ``options`` asks for; on any failure stop it all (keeping the logs)."""
    stack = _new_stack(options)
    try:
        _start(stack, progress or _no_progress)
    except BaseException as exc:
        stack.keep_work_dir = True
        stack.close()
        if isinstance(exc, (RuntimeError, TimeoutError, StackStartError)):
            raise StackStartError(f"{exc} (logs in {stack.work_dir})") from exc
        raise
    return stack
