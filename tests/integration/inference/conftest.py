"""Real engine and router processes on free local ports."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.core.catalog import catalog_from_dict
from services.core.prompt import (
    PromptInputs,
    apply_tenant_salt,
    build_prompt,
    sop_catalog_from_dict,
)
from services.inference.launcher import ManagedProcess, start_engine, start_router, wait_healthy
from services.paths import DEMO_DATA_DIR

MODEL = "cachecoh-offline"
FAST = {"seconds_per_output_token": 0.0002, "seconds_per_prefill_token": 0.00001}

StartEngines = Callable[..., list[ManagedProcess]]
StartRouter = Callable[..., ManagedProcess]


@pytest.fixture()
def start_engines(tmp_path: Path) -> Iterator[StartEngines]:
    started: list[ManagedProcess] = []

    def start(count: int, **settings: Any) -> list[ManagedProcess]:
        engines = [
            start_engine(f"engine-{len(started) + i}", {**FAST, **settings}, log_dir=tmp_path)
            for i in range(count)
        ]
        started.extend(engines)
        wait_healthy(engines)
        return engines

    yield start
    for process in started:
        process.stop()


@pytest.fixture()
def start_router_for(tmp_path: Path) -> Iterator[StartRouter]:
    started: list[ManagedProcess] = []

    def start(engines: list[ManagedProcess], **settings: Any) -> ManagedProcess:
        router = start_router(
            f"router-{len(started)}",
            [e.url for e in engines],
            {"health_interval_seconds": 0.2, **settings},
            log_dir=tmp_path,
        )
        started.append(router)
        wait_healthy([router])
        return router

    yield start
    for process in started:
        process.stop()


@pytest.fixture(scope="session")
def chat_body() -> Callable[[str, str, str, str], dict[str, Any]]:
    """A salted canonical chat request for (tenant, attribute, product, question)."""
    sop = sop_catalog_from_dict(
        json.loads((DEMO_DATA_DIR / "sop_templates.json").read_text("utf-8"))
    )
    products = {
        p.product_id: p
        for p in catalog_from_dict(json.loads((DEMO_DATA_DIR / "catalog.json").read_text("utf-8")))
    }

    def body(tenant: str, attribute: str, product: str, question: str) -> dict[str, Any]:
        template = sop.for_attribute(attribute) or sop.generic
        prompt = build_prompt(
            PromptInputs(sop.system_prompt, template, question, (products[product],), (attribute,))
        )
        request = {"model": MODEL, "messages": prompt.openai_messages()}
        return apply_tenant_salt(request, tenant, salt_key=b"integration-test-key")

    return body


def engine_counter(client: httpx.Client, engine: ManagedProcess, name: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    total = 0.0
    for family in text_string_to_metric_families(client.get(f"{engine.url}/metrics").text):
        for sample in family.samples:
            if sample.name == name:
                total += sample.value
    return total


def served_by(response: httpx.Response) -> str:
    return response.headers["x-cachecoh-replica"]


def replicas_state(client: httpx.Client, router: ManagedProcess) -> Mapping[str, dict[str, Any]]:
    state = client.get(f"{router.url}/router/replicas").json()
    return {r["name"]: r for r in state["replicas"]}
