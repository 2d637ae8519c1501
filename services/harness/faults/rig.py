"""The infrastructure a fault or fuzz run starts for itself, and always stops.

The one embedded-stack launcher (``services.harness.stack``) with what a fault run needs:
an embedded Tansu broker, a private ``redis-server`` (with AOF when asked, so a restart
keeps generations and entries), an audit database (a temp SQLite file unless a URL is
given), topics, a consumer group and a key prefix of its own, no engine, relay or gateway;
coherence workers are started from it as real child processes and SIGKILLed at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine

from services.adapters.embedded_broker import EmbeddedBroker
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_publisher import SpecUpdatePublisher
from services.coherence.process import WorkerProcess
from services.core.keys import KeySpace
from services.harness.stack import Stack, StackOptions, start_stack

#: Worker settings that make a restarted worker rejoin in seconds against Tansu: a
#: SIGKILLed member holds its partitions until its session expires, and a join waits up
#: to the rebalance timeout for members that will never answer. Measured here: about
#: 5 s from start to owning partitions with these, about 22 s with the 10 s defaults.
FAST_REJOIN: Mapping[str, str] = {
    "CACHECOH_SESSION_TIMEOUT_S": "2",
    "CACHECOH_HEARTBEAT_INTERVAL_S": "0.3",
    "CACHECOH_REBALANCE_TIMEOUT_S": "2",
    "CACHECOH_COMMIT_INTERVAL_S": "0.2",
}


@dataclass(frozen=True, slots=True)
class RigConfig:
    partitions: int = 6
    redis_aof: bool = True
    database_url: str | None = None  # default: a SQLite file in the work directory
    work_dir: Path | None = None  # default: a temp directory, removed unless keep_work_dir
    keep_work_dir: bool = False
    worker_log_level: str = "WARNING"


@dataclass
class Rig:
    """The fault run's view of its stack (the names the suite and the fuzzer use)."""

    config: RigConfig
    stack: Stack

    @property
    def work_dir(self) -> Path:
        return self.stack.work_dir

    @property
    def broker(self) -> EmbeddedBroker:
        assert self.stack.broker is not None
        return self.stack.broker

    @property
    def redis(self) -> RedisServerProcess:
        assert self.stack.redis_server is not None
        return self.stack.redis_server

    @property
    def bootstrap(self) -> str:
        return self.stack.bootstrap

    @property
    def database_url(self) -> str:
        return self.stack.database_url

    @property
    def topic(self) -> str:
        return self.stack.topic

    @property
    def dlq_topic(self) -> str:
        return self.stack.dlq_topic

    @property
    def group(self) -> str:
        return self.stack.group

    @property
    def keys(self) -> KeySpace:
        return self.stack.keys

    @property
    def keep_work_dir(self) -> bool:
        return self.stack.keep_work_dir

    @keep_work_dir.setter
    def keep_work_dir(self, keep: bool) -> None:  # set on failure: the logs explain it
        self.stack.keep_work_dir = keep

    @property
    def engine(self) -> Engine:
        return self.stack.sql_engine

    def worker_env(self, **overrides: str) -> dict[str, str]:
        return self.stack.worker_env(**overrides)

    def new_worker(self, name: str, **overrides: str) -> WorkerProcess:
        """A worker (not started yet); the rig stops it at the end whatever happens."""
        return self.stack.new_worker(name, **overrides)

    def publisher(self) -> SpecUpdatePublisher:
        return self.stack.publisher()

    def close(self) -> None:
        self.stack.close()

    def __enter__(self) -> Rig:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def start_rig(config: RigConfig) -> Rig:
    """Start broker and Redis, create topics, migrate and seed the database. Stops all on
    error (``start_stack`` does)."""
    options = StackOptions(
        name="faults",
        work_dir=config.work_dir,
        keep_work_dir=config.keep_work_dir,
        log_level=config.worker_log_level,
        partitions=config.partitions,
        unique_topics=True,
        redis="private",
        redis_aof=config.redis_aof,
        database_url=config.database_url,
        seed_catalog=True,
        engines=0,
        worker=False,
        worker_env=FAST_REJOIN,
        stop_workers="kill",
        relay=False,
        gateway=False,
    )
    return Rig(config=config, stack=start_stack(options))
