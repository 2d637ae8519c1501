"""Header seconds are ASCII digits only (a 500 found by fuzzing the live gateway)."""

from __future__ import annotations

import pytest

from services.core.cache_control import TTL_HEADER, parse_cache_controls
from services.core.chat_request import InvalidRequest


@pytest.mark.parametrize("value", ["²", "¹", "³", "١٢", "１２"])
def test_non_ascii_digits_are_a_400_not_a_crash(value: str) -> None:
    with pytest.raises(InvalidRequest) as ttl:
        parse_cache_controls(None, value, None, min_ttl_s=1, max_ttl_s=100)
    assert ttl.value.field == f"header:{TTL_HEADER}"
    with pytest.raises(InvalidRequest) as max_age:
        parse_cache_controls(f"max-age={value}", None, None, min_ttl_s=1, max_ttl_s=100)
    assert max_age.value.field == "header:cache-control"


def test_ascii_seconds_still_parse() -> None:
    controls = parse_cache_controls("max-age=30", "60", None, min_ttl_s=1, max_ttl_s=100)
    assert (controls.max_age_s, controls.ttl_s) == (30, 60)
