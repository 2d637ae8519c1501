"""The infrastructure a fault or fuzz run starts for itself, and always stops.

An embedded Tansu broker, a private ``redis-server`` (with AOF when asked, so a restart
keeps generations and entries), an audit database (a temp SQLite file unless a URL is
given), topics, a consumer group and a key prefix of its own; coherence workers are
started from it as real child processes.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine

from services.adapters.embedded_broker import EmbeddedBroker
from services.adapters.embedded_redis import RedisServerProcess
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.sql.engine import make_engine, upgrade
from services.coherence.process import WorkerProcess
from services.core.keys import KeySpace

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
    config: RigConfig
    work_dir: Path
    broker: EmbeddedBroker
    redis: RedisServerProcess
    database_url: str
    topic: str
    dlq_topic: str
    group: str
    keys: KeySpace
    keep_work_dir: bool = False  # set on failure: the logs explain it
    _workers: list[WorkerProcess] = field(default_factory=list)
    _engine: Engine | None = None

    @property
    def bootstrap(self) -> str:
        return self.broker.bootstrap

    def worker_env(self, **overrides: str) -> dict[str, str]:
        return {
            "CACHECOH_KAFKA_BOOTSTRAP": self.broker.bootstrap,
            "CACHECOH_TOPIC": self.topic,
            "CACHECOH_DLQ_TOPIC": self.dlq_topic,
            "CACHECOH_TOPIC_PARTITIONS": str(self.config.partitions),
            "CACHECOH_CONSUMER_GROUP": self.group,
            "CACHECOH_REDIS_URL": self.redis.url,
            "CACHECOH_REDIS_PREFIX": self.keys.prefix,
            "CACHECOH_DATABASE_URL": self.database_url,
            "CACHECOH_STATE_DIR": str(self.work_dir / "faust"),
            "CACHECOH_LOG_LEVEL": self.config.worker_log_level,
            "CACHECOH_SEED_SPEC_STORE": "true",
            **FAST_REJOIN,
            **overrides,
        }

    def new_worker(self, name: str, **overrides: str) -> WorkerProcess:
        """A worker (not started yet); the rig stops it at the end whatever happens."""
        worker = WorkerProcess(self.worker_env(**overrides), log_file=self.work_dir / f"{name}.log")
        self._workers.append(worker)
        return worker

    def publisher(self) -> SpecUpdatePublisher:
        return SpecUpdatePublisher(self.broker.bootstrap, topic=self.topic)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = make_engine(self.database_url)
        return self._engine

    def close(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(Exception):
                worker.kill()
        self._workers.clear()
        if self._engine is not None:
            self._engine.dispose()
        for stop in (self.broker.stop, self.redis.stop):
            with contextlib.suppress(Exception):
                stop()
        keep = self.keep_work_dir or self.config.keep_work_dir
        if not keep and self.config.work_dir is None:
            shutil.rmtree(self.work_dir, ignore_errors=True)

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
    """Start broker and Redis, create topics, migrate the database. Stops all on error."""
    work_dir = config.work_dir or Path(tempfile.mkdtemp(prefix="cachecoh-faults-"))
    work_dir.mkdir(parents=True, exist_ok=True)
    run_id = uuid.uuid4().hex[:8]
    database_url = config.database_url or f"sqlite:///{work_dir / 'audit.db'}"
    broker = EmbeddedBroker(log_file=work_dir / "tansu.log")
    redis = RedisServerProcess(data_dir=work_dir / "redis" if config.redis_aof else None)
    try:
        broker.start()
        redis.start()
        topic = f"faults-{run_id}"
        ensure_topics(
            broker.bootstrap,
            [(topic, config.partitions), (f"{topic}.dlq", config.partitions)],
        )
        upgrade(database_url)
    except BaseException:
        redis.stop()
        broker.stop()
        raise
    return Rig(
        config=config,
        work_dir=work_dir,
        broker=broker,
        redis=redis,
        database_url=database_url,
        topic=topic,
        dlq_topic=f"{topic}.dlq",
        group=f"faults-{run_id}",
        keys=KeySpace(f"ccfaults-{run_id}"),
    )
