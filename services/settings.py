"""Settings shared by every process. Each service extends ``CommonSettings`` with its own
fields in ``services/<service>/settings.py``; values come from ``CACHECOH_*`` environment
variables (or a ``.env`` file), never from reads scattered through the code.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.paths import DEMO_DATA_DIR, MAPPINGS_DIR, SCHEMAS_DIR


class CommonSettings(BaseSettings):
    """Connection settings every cachecoh process needs."""

    model_config = SettingsConfigDict(
        env_prefix="CACHECOH_", env_file=".env", extra="ignore", frozen=True
    )

    redis_url: SecretStr = Field(
        SecretStr("redis://127.0.0.1:6379/0"),
        description="Redis holding answers and tag generations (may carry a password).",
    )
    redis_prefix: str = Field("cc", pattern=r"^[A-Za-z0-9_.-]{1,40}$", description="Key prefix.")
    redis_cluster: bool = Field(False, description="Talk Redis Cluster protocol.")
    replica_guard: bool = Field(
        True,
        description="Serve cached entries only under the coherence worker's lease and never "
        "from an older Redis dataset than seen (docs/coherence.md); off only where no worker "
        "runs (gateway-only tests, checks, benchmarks). Not available on Redis Cluster.",
    )
    database_url: SecretStr = Field(
        SecretStr("sqlite:///var/cachecoh.db"),
        description="SQLAlchemy URL: postgresql+psycopg://... in production, SQLite embedded.",
    )
    kafka_bootstrap: str = Field("127.0.0.1:9092", description="Kafka bootstrap servers.")
    topic: str = Field("product-spec-updated", description="Spec-update topic.")
    dlq_topic: str = Field("product-spec-updated.dlq", description="Dead-letter topic.")
    topic_partitions: int = Field(6, ge=1, description="Partitions when creating topics.")
    schemas_dir: Path = Field(SCHEMAS_DIR, description="JSON Schema contracts.")
    mappings_dir: Path = Field(MAPPINGS_DIR, description="Field → tag mapping files.")
    data_dir: Path = Field(DEMO_DATA_DIR, description="Catalog, attribute vocabulary, policy.")
    log_level: str = Field("INFO", description="Python log level.")
