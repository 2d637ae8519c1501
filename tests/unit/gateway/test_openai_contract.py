"""The one OpenAI chat contract: what it refuses, and how the refusal names the field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from services.core.chat_request import InvalidRequest, parse_chat_request
from services.core.openai_contract import (
    SEED_MAX,
    SEED_MIN,
    ChatCompletionRequest,
    error_location,
)

USER = [{"role": "user", "content": "iPhone 15 battery?"}]
BASE: dict[str, Any] = {"model": "m", "messages": USER}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**BASE, "stream_options": {"include_usage": True}}, "body"),
        ({**BASE, "stream": False, "stream_options": {"include_usage": True}}, "body"),
        ({**BASE, "seed": SEED_MAX + 1}, "seed"),
        ({**BASE, "seed": SEED_MIN - 1}, "seed"),
        ({**BASE, "seed": 1.5}, "seed"),
        ({**BASE, "stream": "true"}, "stream"),
        ({**BASE, "stream": 1}, "stream"),
        ({**BASE, "logprobs": "no"}, "logprobs"),
        ({**BASE, "n": True}, "n"),
        ({**BASE, "temperature": "0.5"}, "temperature"),
        ({**BASE, "stop": [1]}, "stop[0]"),
        ({**BASE, "cache_salt": ""}, "cache_salt"),
        ({**BASE, "model": "   "}, "model"),
        ({"model": "m", "messages": [{"role": ["user"], "content": "x"}]}, "messages[0].role"),
        ({"model": "m", "messages": [{"role": {"r": 1}, "content": "x"}]}, "messages[0].role"),
        (
            {"model": "m", "messages": [{"role": "user", "content": [{"text": "x"}]}]},
            "messages[0].content[0].type",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "text"}]}]},
            "messages[0].content[0]",
        ),
    ],
)
def test_contract_violations_are_invalid_requests_naming_the_field(
    body: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_chat_request(body)
    assert caught.value.field == field


def test_stream_options_with_stream_and_the_seed_bounds_are_accepted() -> None:
    request = parse_chat_request(
        {**BASE, "stream": True, "stream_options": {"include_usage": True}, "seed": SEED_MAX}
    )
    assert request.stream and request.include_usage
    assert parse_chat_request({**BASE, "seed": SEED_MIN}).params["seed"] == SEED_MIN


def test_an_assistant_turn_calling_tools_may_omit_content() -> None:
    call = {"role": "assistant", "tool_calls": [{"id": "1", "type": "function"}]}
    assert parse_chat_request({**BASE, "messages": [*USER, call]}).messages[1]["content"] is None
    with pytest.raises(ValidationError):
        ChatCompletionRequest.model_validate({**BASE, "messages": [{"role": "user"}]})


def test_unknown_parameters_are_kept() -> None:
    request = ChatCompletionRequest.model_validate({**BASE, "guided_json": {"type": "object"}})
    assert request.model_extra == {"guided_json": {"type": "object"}}
    assert parse_chat_request({**BASE, "guided_json": 1}).params["guided_json"] == 1


def test_error_locations_drop_pydantic_union_tags() -> None:
    loc = ("body", "messages", 0, "content", "list[ContentPart]", 2, "ContentPart", "type")
    assert error_location(loc) == "messages[0].content[2].type"
    assert error_location(("stop", "str")) == "stop"
