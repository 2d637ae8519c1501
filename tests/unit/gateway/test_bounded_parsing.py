"""Bounded work before the pipeline: JSON depth, request length (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.core.chat_request import (
    InvalidRequest,
    decode_json_body,
    json_depth,
    parse_chat_request,
    text_length,
)
from services.gateway.admission import BypassReason, admit_length


def nested(depth: int) -> Any:
    value: Any = 1
    for index in range(depth):
        value = [value] if index % 2 else {"k": value}
    return value


@pytest.mark.parametrize("depth", [0, 1, 2, 63, 64, 65, 300, 900])
def test_json_depth_counts_arrays_and_objects(depth: int) -> None:
    assert json_depth(nested(depth)) == depth


def test_bodies_deeper_than_the_bound_are_invalid_and_shallow_ones_decode() -> None:
    shallow = json.dumps({"a": [nested(10)] * 20}).encode()  # many brackets, little depth
    assert decode_json_body(shallow, max_depth=12) == json.loads(shallow)
    with pytest.raises(InvalidRequest, match="deeper than 12") as deep:
        decode_json_body(json.dumps({"a": nested(12)}).encode(), max_depth=12)
    assert deep.value.field == "body"
    with pytest.raises(InvalidRequest, match="not valid JSON"):
        decode_json_body(b"[" * 5000, max_depth=64)


def test_a_request_longer_than_the_keyed_bound_is_bypassed_unkeyed() -> None:
    messages = [
        {"role": "system", "content": "s" * 10},
        {"role": "user", "content": [{"type": "text", "text": "t" * 20}, {"type": "image_url"}]},
    ]
    request = parse_chat_request({"model": "m", "messages": messages})
    assert text_length(request.messages) == 30
    assert admit_length(30, max_keyed_chars=30) is None
    assert admit_length(31, max_keyed_chars=30) is BypassReason.REQUEST_TOO_LONG
