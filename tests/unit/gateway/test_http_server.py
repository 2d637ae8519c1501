"""The gateway's HTTP server pieces that need no socket (services/gateway/server.py)."""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE

from services.gateway.server import FORBIDDEN_IN_HEADER_NAMES, FORBIDDEN_IN_HEADER_VALUES


def test_the_head_check_refuses_exactly_the_bytes_uvicorns_patterns_refuse() -> None:
    for byte in range(256):
        one = bytes([byte])
        assert (byte in FORBIDDEN_IN_HEADER_NAMES) == bool(HEADER_RE.search(one)), byte
        assert (byte in FORBIDDEN_IN_HEADER_VALUES) == bool(HEADER_VALUE_RE.search(one)), byte
    # the joins' separators are allowed, so a joined check sees only the headers' bytes
    assert ord("-") not in FORBIDDEN_IN_HEADER_NAMES
    assert ord("\t") not in FORBIDDEN_IN_HEADER_VALUES
