"""Pure core: cache-control headers and the cached-answer format (incl. SSE replay)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from services.core.answers import (
    SSE_DONE,
    AnswerFormatError,
    AnswerMeta,
    NotCacheable,
    StreamAssembly,
    StreamReplay,
    age_seconds,
    decode_answer,
    encode_answer,
    etag_of,
)
from services.core.cache_control import DEFAULT_CONTROLS, parse_cache_controls
from services.core.chat_request import InvalidRequest


def controls(cc: str | None = None, ttl: str | None = None, ns: str | None = None) -> Any:
    return parse_cache_controls(cc, ttl, ns, min_ttl_s=5, max_ttl_s=3600)


def test_cache_control_directives() -> None:
    assert controls() is DEFAULT_CONTROLS
    parsed = controls("No-Cache, no-store, max-age=30", "60", "beta")
    assert parsed.no_cache and parsed.no_store
    assert parsed.max_age_s == 30 and parsed.ttl_s == 60 and parsed.namespace == "beta"
    assert controls("max-age=0").no_cache
    assert controls("max-age=10").accepts_age(10)
    assert not controls("max-age=10").accepts_age(11)


@pytest.mark.parametrize(
    ("cc", "ttl", "ns", "field"),
    [
        (None, "4", None, "header:x-cache-ttl"),
        (None, "3601", None, "header:x-cache-ttl"),
        (None, "ten", None, "header:x-cache-ttl"),
        (None, None, "bad namespace!", "header:x-cache-namespace"),
        ("max-age=soon", None, None, "header:cache-control"),
    ],
)
def test_bad_headers_name_the_header(
    cc: str | None, ttl: str | None, ns: str | None, field: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        controls(cc, ttl, ns)
    assert caught.value.field == field


RESPONSE = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "iPhone 15: 20 h"},
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}


def meta(**overrides: Any) -> AnswerMeta:
    base: dict[str, Any] = {
        "layer": "req",
        "created_at": 1000.0,
        "product": "iphone_15",
        "cid": "iphone_15|battery_life|",
        "tags": ("iphone_15/p", "iphone_15/s:battery_life"),
        "generations": (("p", "17"), ("s:battery_life", "4")),
        "spec_versions": {"iphone_15": 3},
    }
    return AnswerMeta(**{**base, **overrides})


def test_answer_round_trip_and_headers() -> None:
    response = orjson.dumps(RESPONSE)
    body = encode_answer(meta(), response)
    decoded = decode_answer(body)
    assert decoded.response == response
    assert decoded.meta.spec_versions == {"iphone_15": 3}
    assert decoded.meta.generations == (("p", "17"), ("s:battery_life", "4"))
    assert decoded.meta.etag == etag_of(response) != etag_of(response + b" ")
    assert decoded.meta.surrogate_key == "iphone_15/p iphone_15/s:battery_life"
    assert decoded.age(1041.9) == 41
    assert age_seconds(1000.0, 990.0) == 0
    with pytest.raises(AnswerFormatError):
        decode_answer(b'{"f":99}\n{}')
    with pytest.raises(AnswerFormatError):
        decode_answer(b"no header")


def test_stream_assembly_and_replay_round_trip() -> None:
    assembly = StreamAssembly()
    chunks: list[dict[str, Any]] = [
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}],
        },
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "iPhone 15"}}],
        },
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": ": 20 h"}}],
        },
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
        {"id": "c", "created": 1, "model": "m", "choices": [], "usage": RESPONSE["usage"]},
    ]
    for chunk in chunks:
        assembly.add(chunk)
    completion = assembly.completion()
    assert completion["choices"][0]["message"]["content"] == "iPhone 15: 20 h"
    assert completion["usage"] == RESPONSE["usage"]
    assert assembly.chunks == ("iPhone 15", ": 20 h")

    replay = StreamReplay.of(completion, assembly.chunks)
    events = replay.events("chatcmpl-x", 9, include_usage=False)
    assert events[-1] == SSE_DONE
    payloads = [orjson.loads(e[len(b"data: ") :]) for e in events[:-1]]
    assert (
        "".join(p["choices"][0]["delta"].get("content", "") for p in payloads) == "iPhone 15: 20 h"
    )
    assert [p["choices"][0]["delta"].get("content") for p in payloads[1:3]] == [
        "iPhone 15",
        ": 20 h",
    ]
    assert payloads[-1]["choices"][0]["finish_reason"] == "stop"
    assert {(p["id"], p["created"], p["object"]) for p in payloads} == {
        ("chatcmpl-x", 9, "chat.completion.chunk")
    }
    with_usage = StreamReplay.of(completion, ()).events("chatcmpl-y", 9, include_usage=True)
    assert orjson.loads(with_usage[-2][len(b"data: ") :])["usage"] == RESPONSE["usage"]


def test_streams_a_cache_cannot_replay_are_refused() -> None:
    unfinished = StreamAssembly()
    unfinished.add(
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "x"}}],
        }
    )
    with pytest.raises(NotCacheable, match="unfinished"):
        unfinished.completion()
    tools = StreamAssembly()
    tools.add(
        {
            "id": "c",
            "created": 1,
            "model": "m",
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0}]}, "finish_reason": "tool_calls"}
            ],
        }
    )
    with pytest.raises(NotCacheable, match="tool_call_stream"):
        tools.completion()
