"""Start-up errors: every ``cachecoh`` command that meets a bad setting, a bad contract file
or no broker prints one line naming the variable or the file and JSON path, and exits 2.

The CLI runs as a subprocess, as an operator runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.adapters.embedded_broker import free_port
from services.paths import MAPPINGS_DIR, PROJECT_ROOT

pytestmark = [pytest.mark.integration]


def _cachecoh(
    *args: str, cwd: Path, timeout: float = 60, **env: str
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CACHECOH_")}
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args],
        cwd=cwd,
        env={**clean, "PYTHONPATH": str(PROJECT_ROOT), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("cachecoh: error: ")
    assert "Traceback" not in done.stderr
    return lines[0]


def test_bad_environment_variable_names_it(tmp_path: Path) -> None:
    line = _one_error_line(
        _cachecoh("contracts", cwd=tmp_path, CACHECOH_TOPIC_PARTITIONS="several")
    )
    assert "CACHECOH_TOPIC_PARTITIONS: Input should be a valid integer" in line
    assert "cachecoh config" in line


def test_missing_gateway_secrets_are_listed_without_values(tmp_path: Path) -> None:
    secret = "s3cr3t-value-never-echoed"
    line = _one_error_line(
        _cachecoh("serve", "gateway", cwd=tmp_path, CACHECOH_REDIS_PREFIX=f"bad prefix {secret}")
    )
    assert "CACHECOH_REDIS_PREFIX: String should match pattern" in line
    assert "required but not set: CACHECOH_API_KEYS, CACHECOH_ADMIN_TOKEN" in line
    assert secret not in line


def test_a_service_prefix_is_used_for_its_variables(tmp_path: Path) -> None:
    line = _one_error_line(_cachecoh("serve", "engine", cwd=tmp_path, CACHECOH_ENGINE_PORT="http"))
    assert line.startswith("cachecoh: error: CACHECOH_ENGINE_PORT: ")


def _bad_mappings(tmp_path: Path) -> Path:
    folder = tmp_path / "mappings"
    folder.mkdir()
    for path in MAPPINGS_DIR.glob("*.json"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    doc = json.loads((folder / "catalog-specs.json").read_text(encoding="utf-8"))
    first = next(iter(doc["fields"]))
    doc["fields"][first]["semantic_slots"] = "not-a-list"
    (folder / "catalog-specs.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", [["contracts"], ["worker", "coherence"]])
def test_bad_mapping_file_names_file_and_json_path(tmp_path: Path, command: list[str]) -> None:
    folder = _bad_mappings(tmp_path)
    doc = json.loads((folder / "catalog-specs.json").read_text(encoding="utf-8"))
    first = next(iter(doc["fields"]))
    line = _one_error_line(_cachecoh(*command, cwd=tmp_path, CACHECOH_MAPPINGS_DIR=str(folder)))
    assert f"{folder / 'catalog-specs.json'}: $.fields.{first}.semantic_slots: " in line
    assert "CACHECOH_MAPPINGS_DIR" in line


def test_missing_schema_directory_names_the_file(tmp_path: Path) -> None:
    line = _one_error_line(
        _cachecoh("contracts", cwd=tmp_path, CACHECOH_SCHEMAS_DIR=str(tmp_path / "none"))
    )
    assert f"{tmp_path / 'none'}/product-spec-updated.schema.json: $: file not found" in line


def test_traceback_flag_shows_the_traceback(tmp_path: Path) -> None:
    done = _cachecoh(
        "--traceback", "contracts", cwd=tmp_path, CACHECOH_SCHEMAS_DIR=str(tmp_path / "none")
    )
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "ContractError" in done.stderr


@pytest.mark.parametrize("command", [["dlq", "list"], ["dlq", "replay", "--dry-run"]])
def test_dlq_without_a_broker_fails_fast(tmp_path: Path, command: list[str]) -> None:
    nobody = f"127.0.0.1:{free_port()}"
    # kafka-python alone waits 30 s; a hang past 20 s fails the test (TimeoutExpired).
    done = _cachecoh(
        *command,
        "--connect-timeout",
        "2",
        cwd=tmp_path,
        timeout=20,
        CACHECOH_KAFKA_BOOTSTRAP=nobody,
    )
    line = _one_error_line(done)
    assert f"no Kafka broker answered at {nobody} within 2 s" in line
    assert "CACHECOH_KAFKA_BOOTSTRAP" in line


def test_a_cross_field_check_names_its_variable(tmp_path: Path) -> None:
    short_secret = "too-short"
    line = _one_error_line(
        _cachecoh(
            "serve",
            "gateway",
            cwd=tmp_path,
            CACHECOH_API_KEYS='{"sk-test-12345678": "acme"}',
            CACHECOH_ADMIN_TOKEN="0123456789abcdef0123",
            CACHECOH_REQUEST_KEY_SECRET=short_secret,
            CACHECOH_CACHE_SALT_KEY="0123456789abcdef0123",
        )
    )
    assert line.startswith("cachecoh: error: CACHECOH_REQUEST_KEY_SECRET: ")
    assert short_secret not in line
