"""The engine as a real process, through the official openai client and through the CLI."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from services.adapters.embedded_broker import free_port
from services.inference.launcher import ManagedProcess, wait_healthy
from tests.integration.inference.conftest import MODEL, StartEngines, StartRouter

pytestmark = pytest.mark.integration


def test_openai_client_direct_and_through_the_router(
    start_engines: StartEngines,
    start_router_for: StartRouter,
    chat_body: Callable[..., dict[str, Any]],
) -> None:
    engines = start_engines(2)
    router = start_router_for(engines)
    body = chat_body("tenant-a", "weight", "iphone_15_pro", "iPhone 15 Pro 多重")
    for base in (engines[0].url, router.url):
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
        completion = client.chat.completions.create(
            model=MODEL, messages=body["messages"], extra_body={"cache_salt": body["cache_salt"]}
        )
        answer = completion.choices[0].message.content or ""
        assert "iPhone 15 Pro" in answer and "(spec_version 1)" in answer
        stream = client.chat.completions.create(
            model=MODEL,
            messages=body["messages"],
            stream=True,
            extra_body={"cache_salt": body["cache_salt"]},
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == answer
        assert client.models.list().data[0].id == MODEL


def test_cli_serve_engine_starts_a_healthy_engine(tmp_path: Any) -> None:
    port = free_port()
    log = (tmp_path / "cli.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from services.cli import main; main()",
            "serve",
            "engine",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    managed = ManagedProcess(
        "cli-engine", f"http://127.0.0.1:{port}", process, tmp_path / "cli.log", log
    )
    try:
        wait_healthy([managed])
        assert httpx.get(f"{managed.url}/v1/models").json()["data"][0]["stand_in_for"] == "vllm"
    finally:
        managed.stop()
