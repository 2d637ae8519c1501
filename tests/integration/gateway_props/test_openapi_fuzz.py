"""Schemathesis against the live gateway's own OpenAPI document: no 5xx, ever.

The gateway (a real process) runs on a private Redis, in front of the upstream ledger and
the offline engine, as ``cachecoh check isolation`` starts it. Every operation of its
``/openapi.json``, the chat route included (``services/gateway/openapi.py`` describes it),
gets schemathesis-generated requests, valid ones and schema-violating ones, authorised
with a tenant's API key or, on ``/admin``, with the admin token. The fill breaker and the
token bucket are set out of reach: their 503/429 are promised behaviour, and this test
looks for errors.

(Schemathesis's lazy pytest fixture loader does not run under pytest 9, so each
operation's hypothesis strategy is driven here directly.)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from services.core.openai_contract import ChatCompletionRequest
from services.harness.checks.stack import CheckStack, StackConfig, running_stack
from services.paths import DEMO_DATA_DIR

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXAMPLES_PER_OPERATION = 50


@pytest.fixture(scope="module")
def fuzz_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CheckStack]:
    config = StackConfig(
        tenants=("tenant-fuzz",),
        gateway_settings={"bucket_capacity": 100_000, "breaker_misses_per_minute": 1_000_000},
        redis_history=False,
        work_dir=tmp_path_factory.mktemp("fuzz-stack"),
    )
    with running_stack(config) as stack:
        yield stack


def test_the_chat_route_and_the_credentials_are_described(fuzz_stack: CheckStack) -> None:
    document = httpx.get(fuzz_stack.gateway_url + "/openapi.json").json()
    chat = document["paths"]["/v1/chat/completions"]["post"]
    body = chat["requestBody"]["content"]["application/json"]["schema"]
    assert body["$ref"] == "#/components/schemas/ChatCompletionRequest"
    assert chat["security"] == [{"apiKey": []}]
    assert document["paths"]["/admin/purge"]["post"]["security"] == [{"adminToken": []}]


def _fuzz_operation(
    operation: Any, mode: GenerationMode, token: str, statuses: Counter[int], errors: list[str]
) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def call(case: Any) -> None:
        response = case.call(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            errors.append(
                f"{case.method} {case.formatted_path} -> {response.status_code}: "
                f"{response.text[:200]}"
            )

    call()


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_generated_request_gets_a_server_error(
    fuzz_stack: CheckStack, mode: GenerationMode
) -> None:
    schema = schemathesis.openapi.from_url(fuzz_stack.gateway_url + "/openapi.json")
    schema.config.update(base_url=fuzz_stack.gateway_url)
    errors: list[str] = []
    statuses: dict[str, Counter[int]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an Err raises here, as wanted
        admin = operation.path.startswith("/admin")
        token = fuzz_stack.admin_token if admin else fuzz_stack.api_keys["tenant-fuzz"]
        seen = statuses.setdefault(operation.label, Counter())
        try:
            _fuzz_operation(operation, mode, token, seen, errors)
        except Unsatisfiable:
            # No parameters, nothing to get wrong: such an operation has no negative cases.
            assert mode is GenerationMode.NEGATIVE
            assert not operation.body and not any(operation.iter_parameters())
    # chat, models, health, metrics, dashboard data, the four admin routes
    assert len(statuses) >= 9, statuses
    assert not errors, "\n".join(sorted(set(errors))[:20])
    print(mode, {label: dict(counts) for label, counts in statuses.items()})


QUESTIONS = [
    json.loads(line)["text"]
    for line in (DEMO_DATA_DIR / "queries_dev.jsonl").read_text("utf-8").splitlines()[:200]
] + ["我叫王建国，电话13812345678，iPhone 15 电池能用多久", "iPhone 15 多重？ 发到a.b@qq.com"]
_LATIN1 = st.characters(min_codepoint=0x21, max_codepoint=0xFF, exclude_characters="\x7f")
_text = st.sampled_from(QUESTIONS) | st.text(max_size=80)
_content = (
    _text
    | st.lists(
        st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url"]), "text": _text}),
        min_size=1,
        max_size=3,
    )
    | st.none()
)
_message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["system", "developer", "user", "assistant", "tool"]),
        "content": _content,
    },
    optional={"name": st.text(max_size=12)},
)
_json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
CHAT_BODIES = st.fixed_dictionaries(
    {
        "model": st.sampled_from(["cachecoh-offline"]) | st.text(max_size=12),
        "messages": st.lists(_message, min_size=1, max_size=4)
        | _text.map(lambda q: [{"role": "user", "content": q}]),
    },
    optional={
        "temperature": st.sampled_from([0, 0.0, 0.7]) | st.floats(-1, 3, allow_nan=False),
        "top_p": st.floats(0, 1),
        "max_tokens": st.integers(-2, 400),
        "n": st.integers(0, 3),
        "seed": st.integers(-(2**70), 2**70),
        "stream": st.booleans(),
        "stream_options": st.fixed_dictionaries({"include_usage": st.booleans()}),
        "stop": st.text(max_size=4) | st.lists(st.text(max_size=4), max_size=5),
        "user": st.text(max_size=12),
        "metadata": st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2),
        "cache_salt": st.text(max_size=16),
        "tools": st.lists(
            st.dictionaries(st.text(max_size=5), _json_value, max_size=2), max_size=2
        ),
        "response_format": st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "json_object"])}
        ),
        "logprobs": st.booleans(),
        "unknown_parameter": _json_value,
    },
)
CHAT_HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "cache-control": st.sampled_from(["no-cache", "no-store", "max-age=0", "max-age=5"])
        | st.text(_LATIN1, min_size=1, max_size=12),
        "x-cache-ttl": st.integers(-5, 10**12).map(str) | st.text(_LATIN1, min_size=1, max_size=6),
        "x-cache-namespace": st.sampled_from(["support", "a.b-c_d"])
        | st.text(_LATIN1, min_size=1, max_size=70),
    },
)


def test_generated_chat_requests_never_get_a_server_error(fuzz_stack: CheckStack) -> None:
    """The hot route with bodies closer to real traffic than the schema's: real questions,
    personal data, streams, conversations, odd parameters, and any latin-1 header bytes
    (the ASGI server decodes headers as latin-1; this found the '²' TTL crash)."""
    key = fuzz_stack.api_keys["tenant-fuzz"]
    failures: list[str] = []
    with httpx.Client(base_url=fuzz_stack.gateway_url, timeout=60) as client:

        @given(body=CHAT_BODIES, headers=CHAT_HEADERS)
        @settings(
            max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def call(body: dict[str, Any], headers: dict[str, str]) -> None:
            raw_headers: dict[bytes, bytes] = {
                b"authorization": f"Bearer {key}".encode(),
                b"content-type": b"application/json",
            }
            for name, value in headers.items():
                raw_headers[name.encode()] = value.encode("latin-1")
            response = client.post(
                "/v1/chat/completions", content=json.dumps(body), headers=raw_headers
            )
            streamed_error = b'"type":"upstream_error"' in response.content
            if response.status_code >= 500 or streamed_error:
                failures.append(f"{response.status_code}: {response.text[:200]}")

        call()
    assert not failures, "\n".join(sorted(set(failures))[:20])


# -- hostile bodies: deep nesting, wrong types in every field, huge numbers, odd Unicode --

#: Any code point, surrogates and private use included (json.dumps escapes them).
_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
_HUGE_NUMBERS = (
    st.integers(-(2**300), 2**300)
    | st.floats(allow_nan=False)
    | st.sampled_from([2**63, 2**64, -(2**63) - 1, 1e308, -1e308, 5e-324])
)


def _deep(depth: int, leaf: Any) -> Any:
    value = leaf
    for index in range(depth):
        value = [value] if index % 2 else {"k": value}
    return value


_DEEP = st.builds(_deep, st.integers(30, 600), _json_value)
_ANYTHING = _json_value | _ANY_TEXT | _HUGE_NUMBERS | _DEEP
#: Every field of the chat contract: each one gets wrong types, huge numbers and odd text.
_FIELDS = tuple(ChatCompletionRequest.model_fields)


@st.composite
def hostile_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A plausible request with one to three fields replaced by anything at all, or a
    message whose role, content or content part is."""
    body: dict[str, Any] = {
        "model": "cachecoh-offline",
        "messages": [{"role": "user", "content": draw(_ANY_TEXT | st.sampled_from(QUESTIONS))}],
        "temperature": 0,
    }
    for name in draw(st.lists(st.sampled_from(_FIELDS), min_size=1, max_size=3, unique=True)):
        body[name] = draw(_ANYTHING)
    where = draw(st.sampled_from(["none", "role", "content", "part", "name", "extra"]))
    message = {"role": "user", "content": "iPhone 15 电池"}
    if where == "role":
        message["role"] = draw(_ANYTHING)
    elif where == "content":
        message["content"] = draw(_ANYTHING)
    elif where == "part":
        message["content"] = [{"type": "text", "text": draw(_ANYTHING)}, draw(_ANYTHING)]
    elif where == "name":
        message["name"] = draw(_ANYTHING)
    elif where == "extra":
        message[draw(_ANY_TEXT)] = draw(_ANYTHING)
    if where != "none":
        body["messages"] = [message]
    return body


def test_hostile_bodies_never_get_a_server_error(fuzz_stack: CheckStack) -> None:
    key = fuzz_stack.api_keys["tenant-fuzz"]
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=fuzz_stack.gateway_url, timeout=60) as client:

        @given(body=hostile_bodies())
        @settings(
            max_examples=600, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def call(body: dict[str, Any]) -> None:
            response = client.post(
                "/v1/chat/completions",
                content=json.dumps(body),
                headers={"authorization": f"Bearer {key}", "content-type": "application/json"},
            )
            statuses[response.status_code] += 1
            if response.status_code >= 500 or b'"type":"upstream_error"' in response.content:
                failures.append(f"{response.status_code}: {response.text[:200]}")

        call()
    assert not failures, "\n".join(sorted(set(failures))[:20])
    assert statuses[400] > 0  # the generator does reach the validation


def test_the_gateway_logged_no_unhandled_error(fuzz_stack: CheckStack) -> None:
    """A swallowed exception is a bug even when it was answered without a 5xx."""
    log = fuzz_stack.log_paths()["gateway_log"].read_text("utf-8", "replace")
    assert "Traceback" not in log, log[-3000:]
