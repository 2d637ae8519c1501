"""The slice of the OpenAI chat-completions contract the engine and router speak.

Unknown request fields are accepted and ignored, as vLLM does for sampling parameters
it does not use; ``cache_salt`` is vLLM's extension (prefix-cache isolation).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    # vLLM's default: stream_options without include_usage still reports usage.
    include_usage: bool = True


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    n: int = Field(default=1, ge=1, le=1, description="only n=1 is supported")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    cache_salt: str | None = Field(default=None, min_length=1)

    def output_limit(self, default: int) -> int:
        return self.max_completion_tokens or self.max_tokens or default


def error_body(
    message: str, *, status: int, error_type: str, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error envelope; the ``openai`` client raises the matching exception."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": status}}


def error_response(
    message: str, *, status: int, error_type: str, param: str | None = None
) -> JSONResponse:
    return JSONResponse(
        error_body(message, status=status, error_type=error_type, param=param), status_code=status
    )


async def validation_error_handler(_: Request, exc: Exception) -> JSONResponse:
    """Invalid requests are 400 BadRequestError (as with OpenAI and vLLM), not 422."""
    if not isinstance(exc, RequestValidationError):
        raise exc
    first = exc.errors()[0] if exc.errors() else {}
    location = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = f"{location or 'request'}: {first.get('msg', 'invalid request')}"
    return error_response(message, status=400, error_type="BadRequestError", param=location or None)
