"""The engine's HTTP contract, in process: the official openai client works unchanged."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from fastapi.testclient import TestClient

from services.core.catalog import ProductFacts
from services.core.prompt import PromptInputs, SopCatalog, build_prompt
from services.inference.engine.app import create_app
from services.inference.engine.settings import EngineSettings
from services.inference.metrics_bridge import parse_replica_metrics

MODEL = "cachecoh-offline"


@pytest.fixture()
def http() -> Iterator[TestClient]:
    settings = EngineSettings(seconds_per_output_token=0.0, seconds_per_prefill_token=0.0)
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture()
def client(http: TestClient) -> openai.OpenAI:
    return openai.OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=http)


@pytest.fixture()
def messages(sop: SopCatalog, products: dict[str, ProductFacts]) -> list[dict[str, str]]:
    prompt = build_prompt(
        PromptInputs(
            sop.system_prompt,
            sop.by_id("spec_display"),
            "小米14屏幕多大",
            (products["xiaomi_14"],),
            ("screen_size",),
        )
    )
    return prompt.openai_messages()


def test_non_streaming_completion_with_usage(
    client: openai.OpenAI, messages: list[dict[str, str]]
) -> None:
    completion = client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
    assert (
        completion.choices[0].message.content
        == "Xiaomi 14 — screen size: 6.36 inch. (spec_version 1)"
    )
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 200
    # As vLLM: no prompt_tokens_details when nothing came from the cache.
    assert usage.prompt_tokens_details is None
    again = client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
    assert again.usage is not None and again.usage.prompt_tokens_details is not None
    cached = again.usage.prompt_tokens_details.cached_tokens
    assert cached is not None
    assert cached % 16 == 0 and usage.prompt_tokens - 16 <= cached < usage.prompt_tokens


def test_streaming_yields_the_same_text_and_done(
    client: openai.OpenAI, http: TestClient, messages: list[dict[str, str]]
) -> None:
    stream = client.chat.completions.create(
        model=MODEL,
        messages=messages,
        stream=True,
        stream_options={"include_usage": True},  # type: ignore[arg-type]
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Xiaomi 14 — screen size: 6.36 inch. (spec_version 1)"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 5
    raw = http.post(
        "/v1/chat/completions", json={"model": MODEL, "messages": messages, "stream": True}
    )
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert raw.text.rstrip().endswith("data: [DONE]")
    assert '"usage"' not in raw.text  # no stream_options: no usage chunk, as in vLLM
    # stream_options without include_usage: vLLM's default is to include it.
    defaulted = http.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": messages, "stream": True, "stream_options": {}},
    )
    assert '"usage"' in defaulted.text


def test_max_tokens_truncates_with_finish_reason_length(
    client: openai.OpenAI, messages: list[dict[str, str]]
) -> None:
    completion = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=3)  # type: ignore[arg-type]
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage is not None and completion.usage.completion_tokens == 3


def test_cache_salt_isolates_tenants(client: openai.OpenAI, messages: list[dict[str, str]]) -> None:
    def cached(salt: str) -> int:
        completion = client.chat.completions.create(
            model=MODEL,
            messages=messages,
            extra_body={"cache_salt": salt},  # type: ignore[arg-type]
        )
        assert completion.usage is not None
        details = completion.usage.prompt_tokens_details
        return (details.cached_tokens or 0) if details is not None else 0

    assert cached("tenant-a") == 0
    assert cached("tenant-b") == 0
    assert cached("tenant-a") > 0


def test_metrics_use_vllm_names(
    client: openai.OpenAI, http: TestClient, messages: list[dict[str, str]]
) -> None:
    for _ in range(2):
        client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
    text = http.get("/metrics").text
    for name in (
        "vllm:prefix_cache_queries_total",
        "vllm:prefix_cache_hits_total",
        "vllm:kv_cache_usage_perc",
        "vllm:time_to_first_token_seconds_bucket",
    ):
        assert name in text
    # vLLM v1's TTFT buckets reach 2560 s.
    assert 'vllm:time_to_first_token_seconds_bucket{engine="0",le="2560.0"' in text
    metrics = parse_replica_metrics(text)
    assert metrics.requests_succeeded == 2
    assert 0.4 < (metrics.hit_ratio or 0) < 0.5  # second request hit all but its last block


def test_models_says_it_is_a_stand_in(client: openai.OpenAI) -> None:
    (model,) = client.models.list().data
    assert model.id == MODEL
    assert "stand-in for vLLM" in (model.model_extra or {})["description"]


def test_bad_requests_are_4xx_with_a_clear_message(client: openai.OpenAI, http: TestClient) -> None:
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model=MODEL, messages=[])
    response = http.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": "x"}], "cache_salt": ""},
    )
    assert response.status_code == 400 and "cache_salt" in response.json()["error"]["message"]
    response = http.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": "x"}], "n": 2},
    )
    assert response.status_code == 400 and response.json()["error"]["param"] == "n"


def test_context_length_is_enforced(http: TestClient) -> None:
    long = "word " * 9000
    response = http.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": long}]},
    )
    assert response.status_code == 400
    assert "maximum context length" in response.json()["error"]["message"]


def test_reset_prefix_cache(
    client: openai.OpenAI, http: TestClient, messages: list[dict[str, str]]
) -> None:
    client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
    assert http.post("/reset_prefix_cache").json()["dropped_blocks"] > 0
    again = client.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
    assert again.usage is not None and again.usage.prompt_tokens_details is None
