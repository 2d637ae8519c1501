"""Settings of the gateway (``CACHECOH_*`` environment variables, see docs/gateway.md)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from services.settings import CommonSettings

_TENANT = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class GatewaySettings(CommonSettings):
    # Validation errors must not echo secrets (API keys, tokens) back to the terminal.
    model_config = SettingsConfigDict(**CommonSettings.model_config, hide_input_in_errors=True)

    host: str = Field("127.0.0.1", description="Address the gateway binds.")
    port: int = Field(8000, ge=0, le=65535, description="Port the gateway binds.")
    upstream_url: str = Field(
        "http://127.0.0.1:8100", description="OpenAI-compatible upstream (vLLM, router, engine)."
    )
    upstream_api_key: SecretStr | None = Field(None, description="Bearer token for the upstream.")
    upstream_timeout_s: float = Field(30.0, gt=0, description="Upstream call timeout (then 504).")
    upstream_connect_timeout_s: float = Field(2.0, gt=0, description="Upstream connect timeout.")
    upstream_max_connections: int = Field(256, ge=1, description="Pooled upstream connections.")
    api_keys: SecretStr = Field(
        description="JSON object mapping client API keys to tenant ids. Keys are kept hashed."
    )
    admin_token: SecretStr = Field(description="Bearer token of the /admin API (required).")
    request_key_secret: SecretStr = Field(
        description="HMAC secret of cache keys: keys cannot be recomputed without it."
    )
    cache_salt_key: SecretStr = Field(
        description="HMAC key deriving each tenant's prefix-cache salt (vLLM cache_salt)."
    )
    request_ttl_s: int = Field(3600, ge=1, description="Default TTL of request-layer entries.")
    semantic_ttl_s: int = Field(6 * 3600, ge=1, description="Default TTL of semantic entries.")
    min_ttl_s: int = Field(1, ge=1, description="Lower bound of the X-Cache-TTL override.")
    max_ttl_s: int = Field(7 * 24 * 3600, ge=1, description="Upper bound of X-Cache-TTL.")
    allow_temperature_cache: bool = Field(
        False,
        description="Cache general answers (no fingerprint) sampled with temperature > 0. "
        "Off: a client asking for sampled output asks for a fresh sample.",
    )
    answer_temperature: float = Field(
        0.0,
        ge=0,
        le=2,
        description="Temperature of the answers the gateway grounds from a fingerprint "
        "(whatever the client sent).",
    )
    tenant_answer_policies: str = Field(
        "",
        description='Per-tenant overrides, JSON {"<tenant>": {"answer_temperature": 0.0, '
        '"cache_sampled": false}}.',
    )
    client_override_capacity: int = Field(
        10, ge=1, description="Per API key: no-cache / X-Cache-TTL requests in a burst."
    )
    client_override_refill_per_s: float = Field(
        0.2, gt=0, description="Per API key: no-cache / X-Cache-TTL requests per second."
    )
    assumed_default_temperature: float = Field(
        1.0, ge=0, le=2, description="The upstream's temperature when a request sets none."
    )
    lease_ttl_ms: int = Field(
        35_000, ge=100, description="Single-flight lease; outlives one upstream call."
    )
    lease_wait_s: float = Field(
        30.0, gt=0, description="How long a waiter waits for the filled answer."
    )
    lease_poll_ms: int = Field(20, ge=1, description="Waiters on another replica poll this often.")
    bucket_capacity: int = Field(20, ge=1, description="Token bucket size per key (miss path).")
    bucket_refill_per_s: float = Field(5.0, gt=0, description="Tokens added per second per key.")
    breaker_misses_per_minute: int = Field(
        120, ge=1, description="Upstream misses of one key per minute before the breaker opens."
    )
    fallback_message: str = Field(
        "This question is getting a lot of attention right now; please try again in a minute.",
        description="Message of the 503 answered while a key's fill breaker is open.",
    )
    kill_switch_refresh_s: float = Field(
        0.5, gt=0, le=1.0, description="Kill switches are re-read this often (seen within 1 s)."
    )
    memo_entries: int = Field(
        8192, ge=0, description="In-process memo of redaction and fingerprint results."
    )
    redis_socket_timeout_s: float = Field(0.5, gt=0, description="Fail open after this.")
    redis_max_connections: int = Field(128, ge=1, description="Redis connection pool size.")
    redis_retry_s: float = Field(
        1.0, gt=0, description="After a Redis error, requests skip Redis for this long."
    )
    max_body_bytes: int = Field(
        1024 * 1024, ge=1024, description="Largest request body; longer ones get 413 unread."
    )
    max_json_depth: int = Field(
        64, ge=4, le=200, description="Deepest JSON nesting a request body may have (else 400)."
    )
    max_question_chars: int = Field(
        512, ge=16, description="Longer questions skip fingerprinting and the semantic layer."
    )
    max_keyed_chars: int = Field(
        16_384,
        ge=256,
        description="Requests with more message text are forwarded unkeyed and never cached.",
    )
    offload_chars: int = Field(
        256,
        ge=0,
        description="Texts longer than this are redacted and fingerprinted in a worker thread, "
        "so the event loop (and /health) keeps answering.",
    )
    header_timeout_s: float = Field(
        10.0, gt=0, description="A connection must deliver a request's headers within this."
    )
    body_timeout_s: float = Field(
        30.0, gt=0, description="... and its body within this after the headers (else closed)."
    )
    keep_alive_timeout_s: int = Field(
        5, ge=1, description="Idle keep-alive connections are closed after this."
    )
    max_connections: int = Field(
        1024, ge=1, description="Concurrent connections and requests; beyond, 503 at once."
    )
    seed_spec_store: bool = Field(
        False, description="Migrate the spec store and seed the demo catalog at start."
    )
    dashboard_metrics_urls: str = Field(
        "",
        description="Extra /metrics sources the /dashboard page reads and shows up or down "
        "(comma-separated, `name=url` or a bare URL), e.g. `worker=http://coherence:9102/metrics`; "
        "the upstream's is always read.",
    )
    prices_file: Path | None = Field(
        None, description="Price table for the cost-savings rate (default: data_dir/prices.json)."
    )
    sop_templates: Path | None = Field(
        None, description="sop_templates.json (default: the one in data_dir)."
    )

    @field_validator("api_keys")
    @classmethod
    def _api_keys_are_a_tenant_map(cls, value: SecretStr) -> SecretStr:
        parse_api_keys(value.get_secret_value())
        return value

    @field_validator("tenant_answer_policies")
    @classmethod
    def _tenant_policies_parse(cls, value: str) -> str:
        parse_tenant_answer_policies(value)
        return value

    @model_validator(mode="after")
    def _secrets_are_set(self) -> GatewaySettings:
        for name in ("admin_token", "request_key_secret", "cache_salt_key"):
            secret: SecretStr = getattr(self, name)
            if len(secret.get_secret_value()) < 16:
                raise ValueError(f"{name} must be at least 16 characters")
        if self.min_ttl_s > self.max_ttl_s:
            raise ValueError("min_ttl_s must not exceed max_ttl_s")
        return self

    def tenants_by_key_hash(self) -> dict[str, str]:
        """API keys hashed (SHA-256 hex) → tenant: the raw keys are not kept."""
        return {
            hash_api_key(key): tenant
            for key, tenant in parse_api_keys(self.api_keys.get_secret_value()).items()
        }


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def parse_api_keys(raw: str) -> dict[str, str]:
    try:
        mapping = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"api_keys is not JSON: {exc.msg}") from exc
    if not isinstance(mapping, dict) or not mapping:
        raise ValueError("api_keys must be a non-empty JSON object of key -> tenant")
    for key, tenant in mapping.items():
        if not isinstance(tenant, str) or not _TENANT.match(tenant):
            raise ValueError("every tenant id must be 1-64 characters of A-Z a-z 0-9 _ . -")
        if len(key) < 8:
            raise ValueError("every API key must be at least 8 characters")
    return {str(k): str(v) for k, v in mapping.items()}


_POLICY_FIELDS = {"answer_temperature": (int, float), "cache_sampled": (bool,)}


def parse_tenant_answer_policies(raw: str) -> dict[str, dict[str, float | bool]]:
    """``tenant_answer_policies`` as {tenant: {field: value}}; raises ValueError naming
    the tenant and field that is wrong."""
    if not raw.strip():
        return {}
    try:
        mapping = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"tenant_answer_policies is not JSON: {exc.msg}") from exc
    if not isinstance(mapping, dict):
        raise ValueError("tenant_answer_policies must be a JSON object of tenant -> policy")
    out: dict[str, dict[str, float | bool]] = {}
    for tenant, policy in mapping.items():
        if not isinstance(policy, dict):
            raise ValueError(f"tenant_answer_policies.{tenant} must be an object")
        for name, value in policy.items():
            kinds = _POLICY_FIELDS.get(name)
            if kinds is None:
                raise ValueError(f"tenant_answer_policies.{tenant}.{name}: unknown field")
            if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
                raise ValueError(f"tenant_answer_policies.{tenant}.{name}: wrong type")
            if name == "answer_temperature" and not 0 <= value <= 2:
                raise ValueError(f"tenant_answer_policies.{tenant}.{name}: must be in 0..2")
        out[str(tenant)] = policy
    return out
