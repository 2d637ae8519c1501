"""Pure verdicts of the consistency checker."""

from __future__ import annotations

from services.core.consistency import ConsistencyReport, is_violation, spec_versions_of


def test_versions_are_read_from_the_first_json_line() -> None:
    body = b'{"spec_versions":{"iphone_15":4},"layer":"sem"}\n{"id":"chatcmpl-1"}'
    assert spec_versions_of(body) == {"iphone_15": 4}
    assert spec_versions_of(b'{"spec_versions":{"a":1}}') == {"a": 1}
    assert spec_versions_of(b"not json") is None


def test_older_or_unrecorded_versions_are_violations() -> None:
    body = b'{"spec_versions":{"iphone_15":4}}'
    assert not is_violation(body, "iphone_15", 4)
    assert is_violation(body, "iphone_15", 5)
    assert is_violation(body, "iphone_16", 1)
    assert is_violation(b"{}", "iphone_15", 1)


def test_nines_with_and_without_violations() -> None:
    assert ConsistencyReport(1_000_000, 0, 10).nines == 6.0
    assert ConsistencyReport(1_000_000, 0, 10).nines_is_lower_bound
    assert ConsistencyReport(1_000_000, 10, 10).nines == 5.0
    assert ConsistencyReport(0, 0, 0).nines == 0.0
