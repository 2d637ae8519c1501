"""The OpenAI chat-completions contract, once: the gateway, the offline engine, the router
and the gateway's OpenAPI document all read it from here (pure: pydantic only, no I/O).

What is checked, as OpenAI and vLLM check it (a request that breaks it is a 400 naming
the field):

- strict types: a boolean is ``true``/``false`` (never ``"no"`` or ``1``), a number is a
  JSON number (never a string), an integer is not a boolean; no NaN or infinity;
- ranges: ``temperature`` 0-2, ``top_p`` 0-1, penalties -2-2, token limits ≥ 1, ``n``
  1-128, ``seed`` a signed 64-bit integer (vLLM's bound), ``top_logprobs`` 0-20, at most
  4 ``stop`` strings;
- ``stream_options`` only together with ``stream: true`` (OpenAI's and vLLM's rule);
- every message has a known ``role`` and a ``content`` (null allowed; omitted only by an
  assistant turn that calls tools); a content part is an object with a ``type``, and a
  ``text`` part has a string ``text``;
- ``cache_salt`` (vLLM's prefix-cache isolation) is a non-empty string.

Unknown parameters are accepted and kept (``extra="allow"``): an upstream may know them,
and the gateway keys on them since they may change the answer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Role = Literal["system", "developer", "user", "assistant", "tool"]
#: vLLM bounds ``seed`` by torch's int64.
SEED_MIN = -(2**63)
SEED_MAX = 2**63 - 1
MAX_CHOICES = 128
MAX_STOP_SEQUENCES = 4

#: Parameters that never change the answer's content (transport, accounting, routing).
NON_OUTPUT_PARAMS = frozenset(
    {
        "messages",
        "model",
        "stream",
        "stream_options",
        "user",
        "metadata",
        "store",
        "service_tier",
        "cache_salt",
        "prompt_cache_key",
        "safety_identifier",
    }
)

_STRICT = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


class ContentPart(BaseModel):
    model_config = _STRICT

    type: str = Field(description="'text' parts are read; other parts make the gateway bypass.")
    text: str | None = None

    @model_validator(mode="after")
    def _text_part_has_text(self) -> ContentPart:
        if self.type == "text" and self.text is None:
            raise ValueError("a text part needs a string 'text'")
        return self


class ChatMessage(BaseModel):
    model_config = _STRICT

    role: Role
    #: Required (null is allowed); only an assistant turn that calls tools may omit it.
    content: str | list[ContentPart] | None
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _tool_calls_may_omit_content(cls, data: Any) -> Any:
        if isinstance(data, dict) and "content" not in data and data.get("tool_calls"):
            return {**data, "content": None}
        return data


class StreamOptions(BaseModel):
    model_config = _STRICT

    # Unset means "the server's default": OpenAI's is off (the gateway), vLLM's on (the engine).
    include_usage: bool | None = None


class ChatCompletionRequest(BaseModel):
    """OpenAI's chat-completions request (unknown parameters are kept)."""

    model_config = _STRICT

    model: str = Field(min_length=1, pattern=r"\S")
    messages: list[ChatMessage] = Field(min_length=1)
    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, ge=0, le=1)
    presence_penalty: float | None = Field(None, ge=-2, le=2)
    frequency_penalty: float | None = Field(None, ge=-2, le=2)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    n: int | None = Field(None, ge=1, le=MAX_CHOICES)
    seed: int | None = Field(None, ge=SEED_MIN, le=SEED_MAX)
    top_logprobs: int | None = Field(None, ge=0, le=20)
    logprobs: bool | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    stop: str | Annotated[list[str], Field(max_length=MAX_STOP_SEQUENCES)] | None = Field(
        None, description="A string or at most 4 strings."
    )
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    user: str | None = None
    metadata: dict[str, Any] | None = None
    cache_salt: str | None = Field(
        None,
        min_length=1,
        description="vLLM's prefix-cache salt. The gateway replaces it with the tenant's own.",
    )

    @model_validator(mode="before")
    @classmethod
    def _stream_options_need_stream(cls, data: Any) -> Any:
        # As vLLM: "Stream options can only be defined when `stream=True`."
        if isinstance(data, dict) and data.get("stream_options") and data.get("stream") is not True:
            raise ValueError("stream_options: only allowed when stream is true")
        return data

    def output_limit(self, default: int) -> int:
        """``max_completion_tokens`` (or the deprecated ``max_tokens``), else ``default``."""
        return self.max_completion_tokens or self.max_tokens or default

    @property
    def include_usage(self) -> bool:
        return bool(self.stream and self.stream_options and self.stream_options.include_usage)


class ErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    # OpenAI: a string or null. vLLM (the engine, the router) sends the HTTP status.
    code: str | int | None = None


class ErrorBody(BaseModel):
    """OpenAI's error envelope; the ``openai`` client raises the matching exception."""

    error: ErrorDetail


def error_body(
    message: str, *, error_type: str, param: str | None = None, code: str | int | None = None
) -> dict[str, Any]:
    """OpenAI's error envelope (``ErrorBody``) as a plain dict."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def error_location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON path (``messages[0].role``), without the
    union-member tags pydantic inserts (``str``, ``list[ContentPart]``, ...)."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif (part == "body" and not path) or _is_type_tag(part):
            continue
        else:
            path += f".{part}" if path else part
    return path


def _is_type_tag(part: str) -> bool:
    # Field names are snake_case; pydantic's tags are type names or reprs.
    return part[:1].isupper() or "[" in part or part in _SCALAR_TAGS


_SCALAR_TAGS = frozenset({"str", "int", "float", "bool", "none", "dict", "list"})


def first_violation(exc: ValidationError) -> tuple[str, str]:
    """(JSON path, message) of the first contract violation in ``exc``."""
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "body", "is invalid"
    # A union reports one error per member; the deepest one of the first field says most.
    located = [(error_location(tuple(e.get("loc", ()))), e) for e in errors]
    field = located[0][0].split(".")[0].split("[")[0]
    path, chosen = max(
        (item for item in located if item[0].split(".")[0].split("[")[0] == field),
        key=lambda item: len(item[0]),
    )
    message = str(chosen.get("msg", "is invalid")).removeprefix("Value error, ")
    return path or "body", message


def validate_chat_request(body: Any) -> ChatCompletionRequest:
    """Validate a decoded JSON body (raises pydantic's ``ValidationError``)."""
    return ChatCompletionRequest.model_validate(body)
