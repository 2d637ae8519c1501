"""The processes a check runs against: the embedded stack (``services.harness.stack``)
as the checks want it, and what the checks read from it.

``redis-server`` (private: the checks scan every key, and its append-only file keeps every
write ever made) ← gateway (one worker, uvloop) → upstream ledger
(``services.harness.checks.upstream_ledger``) → offline engine. The spec store is a SQLite file
(or the Postgres database of ``StackConfig.database_url``) seeded with the demo catalog. No
broker or worker: the checks exercise the gateway. Every process writes its log to a file in
the run's work directory, and those files are scanned too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import psutil
import redis
from sqlalchemy.engine import make_url

from services.core.prompt import derive_cache_salt
from services.harness.checks.upstream_ledger import LedgerLine, read_ledger, salt_tag
from services.harness.stack import Stack, StackOptions, StackStartError, start_stack

__all__ = ["DEFAULT_TENANTS", "MODEL", "CheckStack", "StackConfig", "StackStartError"]

DEFAULT_TENANTS = ("tenant-alpha", "tenant-beta", "tenant-gamma")
MODEL = "cachecoh-offline"


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
    #: The SQL database (default: a SQLite file in the work directory; a Postgres URL
    #: checks the production path).
    database_url: str | None = None

    def stack_options(self) -> StackOptions:
        return StackOptions(
            name="check",
            work_dir=self.work_dir,
            keep_work_dir=self.keep_work_dir,
            database_url=self.database_url,
            broker=False,
            redis="private",
            redis_history=self.redis_history,
            engine_settings=self.engine_settings,
            upstream_ledger=True,
            worker=False,
            relay=False,
            tenants=self.tenants,
            gateway_tenants=self.gateway_tenants,
            gateway_settings=self.gateway_settings,
            gateway_log_level=self.gateway_log_level,
        )


@dataclass
class CheckStack:
    config: StackConfig
    stack: Stack

    @property
    def work_dir(self) -> Path:
        return self.stack.work_dir

    @property
    def gateway_url(self) -> str:
        return self.stack.gateway_url

    @property
    def api_keys(self) -> dict[str, str]:
        return self.stack.api_keys

    @property
    def admin_token(self) -> str:
        return self.stack.admin_token

    @property
    def request_key_secret(self) -> str:
        return self.stack.request_key_secret

    @property
    def cache_salt_key(self) -> str:
        return self.stack.cache_salt_key

    @property
    def redis_prefix(self) -> str:
        return self.stack.redis_prefix

    @property
    def database_url(self) -> str:
        return self.stack.database_url

    @property
    def database_path(self) -> Path | None:
        """The SQLite file, if the database is one (a Postgres cluster's files are not the
        stack's own)."""
        url = make_url(self.stack.database_url)
        if url.get_backend_name() != "sqlite" or not url.database:
            return None
        return Path(url.database)

    def gateway_tenant(self, tenant: str) -> str:
        return self.config.gateway_tenants.get(tenant, tenant)

    def salt_owners(self) -> dict[str, str]:
        """Ledger salt tag → the tenant whose salt it is (as the check knows tenants)."""
        key = self.cache_salt_key.encode()
        return {salt_tag(derive_cache_salt(tenant, key)): tenant for tenant in self.config.tenants}

    def ledger_lines(self) -> list[LedgerLine]:
        assert self.stack.ledger is not None
        return read_ledger(self.stack.ledger.url)

    def redis_client(self) -> redis.Redis:
        return self.stack.redis_client()

    def log_paths(self) -> dict[str, Path]:
        return {f"{name}_log": path for name, path in self.stack.log_paths().items()}

    def redis_history_files(self) -> list[Path]:
        server = self.stack.redis_server
        if server is None or server.data_dir is None:
            return []
        return sorted(p for p in server.data_dir.rglob("*") if p.is_file())

    def memory(self) -> dict[str, int]:
        """Resident set size (bytes) of every process of the stack."""
        sizes: dict[str, int] = {}
        for name, pid in self.stack.pids().items():
            with contextlib.suppress(psutil.Error):
                sizes[name] = psutil.Process(pid).memory_info().rss
        return sizes


@contextlib.contextmanager
def running_stack(config: StackConfig) -> Iterator[CheckStack]:
    """Start Redis, engine, ledger and gateway; stop them all on exit."""
    with start_stack(config.stack_options()) as stack:
        yield CheckStack(config=config, stack=stack)
