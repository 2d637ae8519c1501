"""Numbers beyond 64 bits in a request are keyed, not a crash (found by fuzzing)."""

from __future__ import annotations

import orjson

from services.core.chat_request import parse_chat_request
from services.core.request_key import canonical_request

MESSAGES = b'"model": "m", "messages": [{"role": "user", "content": "q"}]'


def _canonical(raw: bytes) -> bytes:
    request = parse_chat_request(orjson.loads(raw))
    return canonical_request(request.model, request.messages, request.params)


def test_an_integral_float_beyond_64_bits_stays_a_float() -> None:
    # orjson reads 2**64 as a float; written back as an int it would overflow orjson.
    canonical = _canonical(b"{" + MESSAGES + b', "x": 18446744073709551616}')
    assert b'"x":1.8446744073709552e+19' in canonical


def test_integral_floats_within_range_still_share_a_key_with_integers() -> None:
    as_int = _canonical(b"{" + MESSAGES + b', "temperature": 0, "x": 18446744073709551615}')
    as_float = _canonical(b"{" + MESSAGES + b', "temperature": 0.0, "x": 18446744073709551615}')
    assert as_int == as_float
