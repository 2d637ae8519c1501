"""The operations files: compose stack, Prometheus config, rules and their unit tests,
and the Grafana dashboard. Validated with the real tools (docker-compose, promtool)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from services.paths import PROJECT_ROOT

pytestmark = [pytest.mark.integration]
OPS = PROJECT_ROOT / "ops"
SECRETS = {
    "REDIS_PASSWORD": "r-secret",
    "POSTGRES_PASSWORD": "p-secret",
    "GRAFANA_ADMIN_PASSWORD": "g-secret",
    "CACHECOH_API_KEYS": '{"sk-test-000001": "acme"}',
    "CACHECOH_ADMIN_TOKEN": "admin-token-0123456789",
    "CACHECOH_REQUEST_KEY_SECRET": "request-key-secret-0123",
    "CACHECOH_CACHE_SALT_KEY": "cache-salt-key-0123456",
}


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is missing (make tools installs it)"
    return path


def _run(
    *args: str, env: dict[str, str] | None = None, cwd: Path = PROJECT_ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
    )


def _rendered(profile: str) -> dict[str, object]:
    result = _run(
        _tool("docker-compose"), "-f", "compose.yaml", "--profile", profile, "config", env=SECRETS
    )
    assert result.returncode == 0, result.stderr
    return dict(yaml.safe_load(result.stdout))


def test_compose_requires_every_secret() -> None:
    for name in SECRETS:
        env = {k: v for k, v in SECRETS.items() if k != name}
        result = _run(_tool("docker-compose"), "-f", "compose.yaml", "config", "-q", env=env)
        assert result.returncode != 0 and name in result.stderr, name


@pytest.mark.parametrize("profile", ["gpu", "offline"])
def test_every_long_running_service_has_a_health_check_and_waits_for_healthy_deps(
    profile: str,
) -> None:
    services = _rendered(profile)["services"]
    assert isinstance(services, dict)
    for name, service in services.items():
        one_shot = service.get("restart") == "no"
        if not one_shot:
            assert "healthcheck" in service, f"{name} has no health check"
        for dep, condition in (service.get("depends_on") or {}).items():
            # The router is waited for as started: its readiness takes vLLM's minutes
            # (tests/unit/inference/test_compose_start_order.py checks that order).
            allowed = ("service_healthy", "service_completed_successfully") + (
                ("service_started",) if dep == "inference-router" else ()
            )
            assert condition["condition"] in allowed, f"{name} -> {dep}"
    for required in (
        "kafka",
        "redis",
        "postgres",
        "coherence",
        "gateway",
        "inference-router",
        "prometheus",
        "grafana",
    ):
        assert required in services


def test_prometheus_config_and_rules_pass_promtool(tmp_path: Path) -> None:
    promtool = _tool("promtool")
    config = (OPS / "prometheus" / "prometheus.yml").read_text()
    local = tmp_path / "prometheus.yml"
    local.write_text(config.replace("/etc/prometheus/rules", str(OPS / "prometheus" / "rules")))
    checked = _run(promtool, "check", "config", str(local))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rules = _run(promtool, "check", "rules", str(OPS / "prometheus" / "rules" / "cachecoh.yml"))
    assert rules.returncode == 0, rules.stdout + rules.stderr


def test_alert_rules_fire_in_promtool_unit_tests() -> None:
    result = _run(
        _tool("promtool"), "test", "rules", "tests/cachecoh_test.yml", cwd=OPS / "prometheus"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_required_alerts_exist() -> None:
    rules = yaml.safe_load((OPS / "prometheus" / "rules" / "cachecoh.yml").read_text())
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r}
    assert {
        "SemanticCacheStaleRatioHigh",
        "InvalidationLagHigh",
        "DeadLetterQueueGrowing",
        "CoherenceConsumerLag",
        "ConsistencyViolation",
        "CacheLayerSwitchedOffLong",
        "RedisUnreachable",
    } <= alerts


_METRIC = re.compile(
    r"\b((?:cachecoh|vllm|request_cache|cache)_?[a-z_:]*[a-z])(?:_bucket|_total|_count|_sum)?\b"
)


def _defined_names() -> str:
    return "\n".join(p.read_text() for p in (PROJECT_ROOT / "services").rglob("*.py"))


def test_dashboard_loads_and_only_uses_metrics_that_exist() -> None:
    dashboard = json.loads((OPS / "grafana" / "dashboards" / "cachecoh.json").read_text())
    assert dashboard["uid"] == "cachecoh"
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert len(panels) >= 15
    rules = yaml.safe_load((OPS / "prometheus" / "rules" / "cachecoh.yml").read_text())
    recorded = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
    source = _defined_names()
    exprs = [t["expr"] for p in panels for t in p["targets"]]
    exprs += [r["expr"] for g in rules["groups"] for r in g["rules"]]
    for expr in exprs:
        for name in _METRIC.findall(expr):
            base = re.sub(r"_(bucket|total|count|sum)$", "", name)
            if name in recorded or base in recorded or base.startswith("cachecoh:"):
                continue
            assert f'"{base}' in source or f"'{base}" in source, (
                f"{name} in {expr!r} is not defined"
            )
