"""Real gateway responses validated against the official OpenAI OpenAPI schemas
(vendored in openai_spec/, source and version in its ``$comment``): completions (miss,
hit), stream chunks (relayed miss, replayed hit), errors and the models routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from services.inference.launcher import ManagedProcess
from tests.integration.gateway.conftest import GatewayFactory
from tests.integration.gateway.helpers import MODEL, chat_body

pytestmark = pytest.mark.integration

SPEC = json.loads(
    (Path(__file__).parent / "openai_spec" / "chat_completions.schemas.json").read_text("utf-8")
)
CHAT = "/v1/chat/completions"


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({**SPEC, "$ref": f"#/components/schemas/{name}"})


COMPLETION = validator("CreateChatCompletionResponse")
CHUNK = validator("CreateChatCompletionStreamResponse")
ERROR = validator("ErrorResponse")
MODEL_SCHEMA = validator("Model")
MODELS = validator("ListModelsResponse")


def violations(schema: Draft202012Validator, document: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in schema.iter_errors(document)
    ]


def chunks(response: httpx.Response) -> list[Any]:
    lines = [
        line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")
    ]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


async def test_gateway_responses_match_the_openai_spec(
    gateway_factory: GatewayFactory, engine: ManagedProcess
) -> None:
    gateway = await gateway_factory(engine.url)
    found: list[str] = []
    async with gateway.client() as client:
        miss = await client.post(CHAT, json=chat_body("iPhone 15 多重"))
        hit = await client.post(CHAT, json=chat_body("iPhone 15 多重"))
        bypass = await client.post(CHAT, json=chat_body("iPhone 15 和小米14哪个好"))
        general = await client.post(CHAT, json=chat_body("你好"))
        for response in (miss, hit, bypass, general):
            assert response.status_code == 200, response.text
            found += violations(COMPLETION, response.json())
        assert hit.headers["x-cache"] == "HIT; layer=request"
        assert hit.json()["id"] != miss.json()["id"]
        assert hit.json()["choices"][0]["message"]["refusal"] is None
        assert hit.headers["etag"] == miss.headers["etag"]

        streamed_miss = await client.post(CHAT, json=chat_body("iPhone 15 屏幕多大", stream=True))
        streamed_hit = await client.post(
            CHAT,
            json=chat_body(
                "iPhone 15 屏幕多大", stream=True, stream_options={"include_usage": True}
            ),
        )
        assert streamed_hit.headers["x-cache"] == "HIT; layer=request"
        for response in (streamed_miss, streamed_hit):
            for chunk in chunks(response):
                found += violations(CHUNK, chunk)

        errors = [
            await client.post(CHAT, content=b"{not json"),
            await client.post(CHAT, json={**chat_body("x"), "temperature": 9}),
            await client.get("/v1/no-such-route"),
            await client.get("/v1/models/no-such-model"),
            await client.delete("/v1/models"),
        ]
        listed = await client.get("/v1/models")
        one = await client.get(f"/v1/models/{MODEL}")
    async with httpx.AsyncClient(base_url=gateway.url) as anonymous:
        errors.append(await anonymous.post(CHAT, json=chat_body("x")))
    assert [e.status_code for e in errors] == [400, 400, 404, 404, 405, 401]
    for error in errors:
        found += violations(ERROR, error.json())
        code = error.json()["error"]["code"]
        assert code is None or isinstance(code, str)
    assert errors[3].json()["error"]["code"] == "model_not_found"
    found += violations(MODELS, listed.json())
    assert one.status_code == 200 and one.json()["id"] == MODEL
    found += violations(MODEL_SCHEMA, one.json())
    assert found == []
