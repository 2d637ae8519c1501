"""The pipelined Redis connection's commands are plain RESP arrays of bulk strings."""

from __future__ import annotations

import pytest

from services.adapters.redis_pipeline import Arg, _encode


def _resp(parts: list[bytes]) -> bytes:
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


@pytest.mark.parametrize(
    ("parts", "wire"),
    [
        (["GET", "k"], [b"GET", b"k"]),
        (["SET", "ключ", b"\x00\r\n\xff"], [b"SET", "ключ".encode(), b"\x00\r\n\xff"]),
        (
            ["EVALSHA", "a" * 40, 2, "x", "y", -3, 0],
            [b"EVALSHA", b"a" * 40, b"2", b"x", b"y", b"-3", b"0"],
        ),
        (["EVAL", ""], [b"EVAL", b""]),
    ],
)
def test_a_command_is_an_array_of_bulk_strings(parts: list[Arg], wire: list[bytes]) -> None:
    assert _encode(parts) == _resp(wire)
