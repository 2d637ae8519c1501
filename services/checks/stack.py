"""The processes a check runs against, all on loopback, all started and stopped here.

``redis-server`` (private: the checks scan every key, and its append-only file keeps every
write ever made) ← gateway (``python -m services.gateway``, one worker, uvloop) → upstream
ledger (``services.checks.upstream_ledger``) → offline engine. The spec store is a SQLite
file the gateway migrates and seeds at start. Every process writes its log to a file in
the run's work directory, and those files are scanned too.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

import psutil
import redis

from services.adapters.embedded_broker import free_port
from services.adapters.embedded_redis import RedisServerProcess
from services.checks.upstream_ledger import LedgerLine, read_ledger, salt_tag
from services.core.prompt import derive_cache_salt
from services.inference.launcher import ManagedProcess, start_engine, wait_healthy

DEFAULT_TENANTS = ("tenant-alpha", "tenant-beta", "tenant-gamma")
GATEWAY_START_TIMEOUT_S = 180.0
MODEL = "cachecoh-offline"


class StackStartError(RuntimeError):
    """A process of the check stack did not come up."""


@dataclass(frozen=True, slots=True)
class StackConfig:
    tenants: tuple[str, ...] = DEFAULT_TENANTS
    #: The tenant id the *gateway* gives each tenant's API key (default: the same id).
    #: Only self-tests set it, to show that a misconfigured tenant map is caught.
    gateway_tenants: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    engine_settings: Mapping[str, Any] = field(
        default_factory=lambda: MappingProxyType({"seconds_per_output_token": 0.0001})
    )
    #: Extra ``GatewaySettings`` fields (bucket, breaker, ...).
    gateway_settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: Redis appends every write to a file, so written-then-deleted data is scanned too.
    redis_history: bool = True
    gateway_log_level: str = "INFO"
    work_dir: Path | None = None
    keep_work_dir: bool = False


@dataclass
class CheckStack:
    config: StackConfig
    work_dir: Path
    redis_server: RedisServerProcess
    engine: ManagedProcess
    ledger: ManagedProcess
    gateway: ManagedProcess
    api_keys: dict[str, str]
    admin_token: str
    request_key_secret: str
    cache_salt_key: str
    redis_prefix: str
    database_path: Path

    @property
    def gateway_url(self) -> str:
        return self.gateway.url

    def gateway_tenant(self, tenant: str) -> str:
        return self.config.gateway_tenants.get(tenant, tenant)

    def salt_owners(self) -> dict[str, str]:
        """Ledger salt tag → the tenant whose salt it is (as the check knows tenants)."""
        key = self.cache_salt_key.encode()
        return {salt_tag(derive_cache_salt(tenant, key)): tenant for tenant in self.config.tenants}

    def ledger_lines(self) -> list[LedgerLine]:
        return read_ledger(self.ledger.url)

    def redis_client(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_server.url)

    def log_paths(self) -> dict[str, Path]:
        found = {
            name: process.log_path
            for name, process in (
                ("gateway_log", self.gateway),
                ("engine_log", self.engine),
                ("upstream_ledger_log", self.ledger),
            )
        }
        return {name: path for name, path in found.items() if path is not None}

    def redis_history_files(self) -> list[Path]:
        data_dir = self.redis_server.data_dir
        if data_dir is None:
            return []
        return sorted(p for p in data_dir.rglob("*") if p.is_file())

    def memory(self) -> dict[str, int]:
        """Resident set size (bytes) of every process of the stack."""
        pids = {
            "gateway": self.gateway.process.pid,
            "engine": self.engine.process.pid,
            "upstream_ledger": self.ledger.process.pid,
            "redis": self.redis_server.pid,
        }
        sizes: dict[str, int] = {}
        for name, pid in pids.items():
            with contextlib.suppress(psutil.Error):
                sizes[name] = psutil.Process(pid).memory_info().rss
        return sizes


def _spawn(
    name: str, module: str, settings: Mapping[str, Any], port: int, work: Path
) -> ManagedProcess:
    log_path = work / f"{name}.log"
    log: IO[bytes] = log_path.open("wb")
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", module, json.dumps(dict(settings))],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return ManagedProcess(name, f"http://127.0.0.1:{port}", process, log_path, log)


def _configure_history(server: RedisServerProcess) -> None:
    client = redis.Redis.from_url(server.url)
    try:
        # fsync once a second (the file is read through the page cache anyway), and never
        # rewrite the append-only file: a rewrite would drop the history the scan reads.
        client.config_set("appendfsync", "everysec")
        client.config_set("auto-aof-rewrite-percentage", 0)
    finally:
        client.close()


@contextlib.contextmanager
def running_stack(config: StackConfig) -> Iterator[CheckStack]:
    """Start Redis, engine, ledger and gateway; stop them all on exit."""
    work = config.work_dir or Path(tempfile.mkdtemp(prefix="cachecoh-check-"))
    work.mkdir(parents=True, exist_ok=True)
    started: list[ManagedProcess] = []
    server = RedisServerProcess(data_dir=work / "redis" if config.redis_history else None)
    try:
        server.start()
        if config.redis_history:
            _configure_history(server)
        engine = start_engine("engine", dict(config.engine_settings), log_dir=work)
        started.append(engine)
        ledger_port = free_port()
        ledger = _spawn(
            "upstream_ledger",
            "services.checks.upstream_ledger",
            {"upstream_url": engine.url, "port": ledger_port},
            ledger_port,
            work,
        )
        started.append(ledger)
        api_keys = {tenant: f"sk-{tenant}-{secrets.token_hex(12)}" for tenant in config.tenants}
        stack_secrets = {
            "admin_token": secrets.token_hex(16),
            "request_key_secret": secrets.token_hex(16),
            "cache_salt_key": secrets.token_hex(16),
        }
        prefix = f"check-{secrets.token_hex(4)}"
        database = work / "spec.db"
        port = free_port()
        gateway_settings = {
            "host": "127.0.0.1",
            "port": port,
            "upstream_url": ledger.url,
            "api_keys": json.dumps(
                {key: config.gateway_tenants.get(t, t) for t, key in api_keys.items()}
            ),
            **stack_secrets,
            "redis_url": server.url,
            "redis_prefix": prefix,
            "database_url": f"sqlite:///{database}",
            "seed_spec_store": True,
            # No coherence worker in this stack: nothing would set the replica lease.
            "replica_guard": False,
            "log_level": config.gateway_log_level,
            **config.gateway_settings,
        }
        gateway = _spawn("gateway", "services.gateway", gateway_settings, port, work)
        started.append(gateway)
        try:
            wait_healthy([engine, ledger])
            wait_healthy([gateway], timeout=GATEWAY_START_TIMEOUT_S)
        except RuntimeError as exc:
            raise StackStartError(str(exc)) from exc
        yield CheckStack(
            config=config,
            work_dir=work,
            redis_server=server,
            engine=engine,
            ledger=ledger,
            gateway=gateway,
            api_keys=api_keys,
            redis_prefix=prefix,
            database_path=database,
            **stack_secrets,
        )
    finally:
        for process in reversed(started):
            process.stop()
        server.stop()
        if not config.keep_work_dir and config.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)
