"""Pure core: request normalisation, canonical forms and tenant-salted keys."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.core.chat_request import (
    InvalidRequest,
    normalise_text,
    parse_chat_request,
    question_of,
    redact_messages,
)
from services.core.request_key import canonical_request, salted_digest

SECRET = b"unit-test-secret-0123456789"


def key(body: dict[str, Any] | str, tenant: str = "tenant-a", namespace: str = "default") -> str:
    decoded = json.loads(body) if isinstance(body, str) else body
    request = parse_chat_request(decoded)
    canonical = canonical_request(request.model, request.messages, request.params)
    return salted_digest(SECRET, tenant, namespace, canonical)


BASE: dict[str, Any] = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "iPhone 15 电池能用多久"},
    ],
    "temperature": 0,
    "max_tokens": 64,
}


def test_reordered_keys_spacing_and_nfc_give_one_key() -> None:
    reordered = (
        '{"max_tokens": 64, "temperature": 0.0, "messages": [{"content": "Be   brief.\\n", '
        '"role": "system"}, {"content": "  iPhone 15\\t电池能用多久 ", "role": "user"}], '
        '"model": "m"}'
    )
    assert key(BASE) == key(reordered)
    composed = {**BASE, "messages": [{"role": "user", "content": "café"}]}
    decomposed = {
        **BASE,
        "messages": [{"role": "user", "content": unicodedata.normalize("NFD", "café")}],
    }
    assert unicodedata.normalize("NFD", "café") != "café"
    assert key(composed) == key(decomposed)


def test_output_changing_parameters_change_the_key() -> None:
    reference = key(BASE)
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    variants = [
        {**BASE, "temperature": 0.7},
        {**BASE, "tools": [tool]},
        {**BASE, "top_p": 0.5},
        {**BASE, "max_tokens": 65},
        {**BASE, "seed": 7},
        {**BASE, "stop": ["\n"]},
        {**BASE, "response_format": {"type": "json_object"}},
        {**BASE, "model": "other"},
        {**BASE, "some_future_parameter": True},
        {**BASE, "messages": [*BASE["messages"][:1], {"role": "user", "content": "iPhone 16"}]},
    ]
    keys = {key(v) for v in variants}
    assert reference not in keys
    assert len(keys) == len(variants)


def test_parameters_that_do_not_change_the_output_are_ignored() -> None:
    noisy = {
        **BASE,
        "user": "u-123",
        "metadata": {"trace": "x"},
        "stream": True,
        "stream_options": {"include_usage": True},
        "cache_salt": "client-chosen",
    }
    assert key(noisy) == key(BASE)


def test_tenant_and_namespace_salt_the_key() -> None:
    assert key(BASE, "tenant-a") != key(BASE, "tenant-b")
    assert key(BASE, namespace="default") != key(BASE, namespace="beta")
    with pytest.raises(ValueError):
        salted_digest(b"", "tenant-a", "default", b"x")


@given(
    left=st.text(alphabet=" \t\n\u3000", max_size=4),
    middle=st.text(alphabet=" \t\n", min_size=1, max_size=4),
    right=st.text(alphabet=" \t\n", max_size=4),
)
def test_whitespace_never_changes_the_key(left: str, middle: str, right: str) -> None:
    spaced = {**BASE, "messages": [{"role": "user", "content": f"{left}电池{middle}多久{right}"}]}
    plain = {**BASE, "messages": [{"role": "user", "content": "电池 多久"}]}
    assert key(spaced) == key(plain)


def test_normalise_text_drops_control_characters() -> None:
    assert normalise_text("a\x00b\x07 c\r\n") == "ab c"


def test_redaction_placeholders_go_into_the_key_not_the_values() -> None:
    request = parse_chat_request(
        {**BASE, "messages": [{"role": "user", "content": "call 13812345678"}]}
    )
    redacted = redact_messages(request.messages, lambda t: t.replace("13812345678", "\x00m\x00"))
    canonical = canonical_request(request.model, redacted, request.params)
    assert b"13812345678" not in canonical
    assert b"\\u0000m\\u0000" in canonical


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([], "body"),
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
        ({"model": "m", "messages": []}, "messages"),
        ({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        ({"model": "m", "messages": [{"role": "user"}]}, "messages[0].content"),
        ({"model": "m", "messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
        ({**BASE, "temperature": 3}, "temperature"),
        ({**BASE, "temperature": "hot"}, "temperature"),
        ({**BASE, "max_tokens": 0}, "max_tokens"),
        ({**BASE, "max_tokens": True}, "max_tokens"),
        ({**BASE, "stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({**BASE, "stream": "yes"}, "stream"),
        ({**BASE, "tools": {"not": "a list"}}, "tools"),
    ],
)
def test_malformed_requests_name_the_field(body: Any, field: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_chat_request(body)
    assert caught.value.field == field


def test_question_of_single_and_multi_turn() -> None:
    single = question_of(parse_chat_request(BASE).messages)
    assert single is not None
    assert single.single and single.system_prompt == "Be brief."
    assert single.text == "iPhone 15 电池能用多久"
    multi = question_of(
        parse_chat_request(
            {
                **BASE,
                "messages": [
                    {"role": "user", "content": "iPhone 15"},
                    {"role": "assistant", "content": "Yes?"},
                    {"role": "user", "content": "电池能用多久"},
                ],
            }
        ).messages
    )
    assert multi is not None
    assert not multi.single
    assert multi.conversation == (("user", "iPhone 15"), ("assistant", "Yes?"))


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": "x"}, {"role": "assistant", "content": "prefill"}],
        [{"role": "tool", "content": "{}", "tool_call_id": "1"}, {"role": "user", "content": "x"}],
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        [
            {"role": "user", "content": "a"},
            {"role": "system", "content": "late instruction"},
            {"role": "user", "content": "b"},
        ],
    ],
)
def test_requests_that_cannot_become_a_canonical_prompt(messages: list[dict[str, Any]]) -> None:
    assert question_of(parse_chat_request({**BASE, "messages": messages}).messages) is None
