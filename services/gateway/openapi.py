"""The gateway's OpenAPI document, including the routes FastAPI does not serve itself.

``POST /v1/chat/completions`` is a plain ASGI handler in front of the FastAPI app (see
``ChatCompletionsApp``), so FastAPI does not know it; this module adds it to the app's
``/openapi.json`` with the request body the handler accepts, the cache headers, and the
statuses it answers. It also states who may call what: tenants with an API key, the
admin API with the admin token (both ``Authorization: Bearer``).

The request body is the one contract the handler validates with
(``services.core.openai_contract``, through ``services.core.chat_request``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

from services.core.openai_contract import ChatCompletionRequest, ErrorBody

CHAT_PATH = "/v1/chat/completions"
API_KEY_SCHEME = "apiKey"
ADMIN_SCHEME = "adminToken"


def _schemas(*models: type[BaseModel]) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for model in models:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
    return schemas


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    }


def chat_operation(*, min_ttl_s: int, max_ttl_s: int) -> dict[str, Any]:
    return {
        "summary": "Chat completion (cached)",
        "operationId": "chat_completions",
        "description": (
            "OpenAI-compatible chat completion, answered from the request or semantic cache "
            "when possible (X-Cache says which); see docs/gateway.md."
        ),
        "security": [{API_KEY_SCHEME: []}],
        "parameters": [
            {
                "name": "Cache-Control",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": "no-cache, no-store, max-age=N.",
            },
            {
                "name": "X-Cache-TTL",
                "in": "header",
                "required": False,
                "schema": {"type": "integer", "minimum": min_ttl_s, "maximum": max_ttl_s},
                "description": "TTL (s) of this answer's entries, within the configured bounds.",
            },
            {
                "name": "X-Cache-Namespace",
                "in": "header",
                "required": False,
                "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$"},
                "description": "A separate key space inside the tenant.",
            },
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/ChatCompletionRequest"}
                }
            },
        },
        "responses": {
            "200": {
                "description": "The completion (JSON), or chunks as server-sent events.",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/event-stream": {"schema": {"type": "string"}},
                },
            },
            "400": _error("Malformed request; param names the field."),
            "401": _error("Missing or unknown API key."),
            "413": _error("The body is larger than max_body_bytes."),
            "429": _error("The question's token bucket is empty (Retry-After)."),
            "502": _error("The upstream is unreachable or answered something else than JSON."),
            "503": _error("The question's fill breaker is open (Retry-After)."),
            "504": _error("The upstream did not answer in time."),
        },
    }


def describe_routes(app: FastAPI, *, min_ttl_s: int, max_ttl_s: int) -> None:
    """Make ``app.openapi()`` include the chat route and the security schemes."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()
        components = document.setdefault("components", {})
        components.setdefault("schemas", {}).update(_schemas(ChatCompletionRequest, ErrorBody))
        components["securitySchemes"] = {
            API_KEY_SCHEME: {"type": "http", "scheme": "bearer", "description": "API key"},
            ADMIN_SCHEME: {"type": "http", "scheme": "bearer", "description": "Admin token"},
        }
        paths = document.setdefault("paths", {})
        paths.setdefault(CHAT_PATH, {})["post"] = chat_operation(
            min_ttl_s=min_ttl_s, max_ttl_s=max_ttl_s
        )
        for path, operations in paths.items():
            scheme = (
                ADMIN_SCHEME
                if path.startswith("/admin/")
                else API_KEY_SCHEME
                if path.startswith("/v1/")
                else None
            )
            for operation in operations.values():
                if scheme is not None:
                    operation.setdefault("security", [{scheme: []}])
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]
