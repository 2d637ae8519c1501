"""The inference services in compose.yaml validate with Debian's docker-compose."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from services.paths import PROJECT_ROOT

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True)
def _docker_compose_installed() -> None:
    # `make test` installs it; a missing tool is a failure, never a silent skip.
    assert shutil.which("docker-compose"), "docker-compose missing: apt-get install docker-compose"


_MISSING = re.compile(r"Missing mandatory value for .*?: set ([A-Z0-9_]+)")
#: Secrets compose.yaml asked for, found once (each costs a docker-compose run) and reused;
#: that it asks for every one is ops/test_deploy_configs.py's test.
_DUMMY_SECRETS: dict[str, str] = {}


def _config(*args: str, **env: str) -> str:
    """``docker-compose config`` with dummy values for the secrets compose.yaml requires."""
    environment = {"PATH": "/usr/bin:/bin", **_DUMMY_SECRETS, **env}
    for _ in range(20):
        result = subprocess.run(
            ["docker-compose", "-f", "compose.yaml", *args],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=environment,
        )
        missing = _MISSING.search(result.stderr)
        if result.returncode != 0 and missing:
            environment[missing.group(1)] = _DUMMY_SECRETS[missing.group(1)] = "dummy-secret"
            continue
        assert result.returncode == 0, result.stderr
        return result.stdout
    raise AssertionError("compose.yaml keeps asking for secrets")


def test_compose_config_is_valid_with_every_profile() -> None:
    for profile in ("gpu", "offline"):
        _config("--profile", profile, "config", "-q")


def test_vllm_replicas_have_the_prefix_caching_flags_gpu_and_health() -> None:
    rendered = _config("--profile", "gpu", "config")
    for flag in (
        "--enable-prefix-caching",
        "--block-size=16",
        "--prefix-caching-hash-algo=sha256_cbor",
        "--enable-prompt-tokens-details",
        "--gpu-memory-utilization=0.90",
        "--max-num-seqs=128",
        "PYTHONHASHSEED: '0'",
        "ipc: host",
        "- gpu",
        "http://127.0.0.1:8000/health",
        "hf-cache:/root/.cache/huggingface",
        "CACHECOH_ROUTER_UPSTREAMS: http://vllm-0:8000,http://vllm-1:8000",
    ):
        assert flag in rendered, flag
    assert rendered.count("image: vllm/vllm-openai:") == 2


def test_env_overrides_reach_vllm_and_the_router() -> None:
    rendered = _config(
        "--profile",
        "offline",
        "config",
        VLLM_MODEL="org/tiny-model",
        VLLM_MAX_NUM_SEQS="7",
        VLLM_GPU_MEMORY_UTILIZATION="0.5",
        INFERENCE_UPSTREAMS="http://engine-0:8100,http://engine-1:8100",
    )
    for expected in (
        "--model=org/tiny-model",
        "--max-num-seqs=7",
        "--gpu-memory-utilization=0.5",
        "CACHECOH_ROUTER_UPSTREAMS: http://engine-0:8100,http://engine-1:8100",
    ):
        assert expected in rendered, expected
