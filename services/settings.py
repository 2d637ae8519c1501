"""Settings shared by every process. Each service extends ``CommonSettings`` with its own
fields in ``services/<service>/settings.py``; values come from ``CACHECOH_*`` environment
variables (or a ``.env`` file), never from reads scattered through the code.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from services.core.errors import MISSING, ConfigurationError
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
    schemas_dir: Path = Field(
        SCHEMAS_DIR, description="JSON Schema contracts (default: the ones shipped in the package)."
    )
    mappings_dir: Path = Field(
        MAPPINGS_DIR, description="Field → tag mapping files (default: the shipped ones)."
    )
    data_dir: Path = Field(
        DEMO_DATA_DIR,
        description="Catalog, attribute vocabulary, policy, admission policy, lexicon, prices "
        "(default: the shipped demo data).",
    )
    log_level: str = Field("INFO", description="Python log level.")


def configuration_error(exc: ValidationError | SettingsError) -> ConfigurationError:
    """Translate a settings class's failure into one that names each ``CACHECOH_*`` variable.

    Input values are never repeated: the variable may hold a secret.
    """
    if isinstance(exc, SettingsError):
        # pydantic-settings: 'error parsing value for field "api_keys" from source ...'
        match = re.search(r'field "([^"]+)"', str(exc))
        field = match.group(1) if match else "?"
        return ConfigurationError({_variable(None, field): "cannot be parsed (JSON expected?)"})
    cls = _settings_class(exc.title)
    problems: dict[str, str] = {}
    for error in exc.errors(include_url=False, include_input=False):
        problem = MISSING if error["type"] == "missing" else str(error["msg"])
        if error["loc"]:
            field = str(error["loc"][0])
        else:  # a model validator: name the field its message names, else the class
            named = [
                f for f in (cls.model_fields if cls else {}) if re.search(rf"\b{f}\b", problem)
            ]
            field = named[0] if named else ""
        name = _variable(exc.title, field) if field else exc.title
        problems.setdefault(name, problem)
    return ConfigurationError(problems)


def _settings_class(name: str | None) -> type[BaseSettings] | None:
    return next((c for c in _settings_classes(BaseSettings) if c.__name__ == name), None)


def _variable(settings_class: str | None, field: str) -> str:
    cls = _settings_class(settings_class)
    prefix = str(cls.model_config.get("env_prefix", "CACHECOH_")) if cls else "CACHECOH_"
    return f"{prefix}{field.upper()}"


def _settings_classes(root: type[BaseSettings]) -> list[type[BaseSettings]]:
    found: list[type[BaseSettings]] = []
    for sub in root.__subclasses__():
        found += [sub, *_settings_classes(sub)]
    return found


def is_settings_error(exc: BaseException) -> bool:
    """A failure of a settings class (not of some other pydantic model)."""
    if isinstance(exc, SettingsError):
        return True
    return isinstance(exc, ValidationError) and _settings_class(exc.title) is not None
