"""Events are identified by CloudEvents (source, id); producer bytes appear by digest."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.adapters.contract_files import EVENT_SCHEMA, validator_for
from services.consistency.checker import ConsistencyChecker
from services.core.errors import InvalidEvent, InvalidReason
from services.core.events import EventIdentity, digest_of, new_event, parse_event
from tests.unit.coherence.test_tags_and_mapping import SHIPPED


def test_the_same_id_from_two_sources_is_two_identities() -> None:
    erp = new_event("iphone_15", ["price"], 2, source="erp", event_id="42")
    pim = new_event("iphone_15", ["battery_life"], 3, source="pim", event_id="42")
    assert erp.identity != pim.identity
    assert erp.identity.dedupe_key != pim.identity.dedupe_key
    # no separator games: ("a#b", "c") and ("a", "b#c") are different events
    assert EventIdentity("a#b", "c").dedupe_key != EventIdentity("a", "b#c").dedupe_key


def test_a_key_mismatch_names_the_key_by_digest_only() -> None:
    event = new_event("iphone_15", ["weight"], 2, source="erp")
    key = b"alice@example.com"
    with pytest.raises(InvalidEvent) as err:
        parse_event(event.to_bytes(), key, validator_for(EVENT_SCHEMA))
    assert err.value.reason is InvalidReason.KEY_MISMATCH
    assert "alice" not in err.value.detail
    assert digest_of(key) in err.value.detail
    assert digest_of(key).startswith("sha256:") and digest_of(None) == "none"


def test_the_checker_skips_redeliveries_but_not_another_sources_event() -> None:
    unused: Any = None
    checker = ConsistencyChecker(unused, SHIPPED, unused, unused, remember=2)
    erp = new_event("iphone_15", ["price"], 2, source="erp", event_id="42")
    pim = new_event("iphone_15", ["battery_life"], 3, source="pim", event_id="42")
    assert checker.add(0, 1, erp)
    assert not checker.add(0, 2, erp)  # redelivered
    assert checker.add(0, 3, pim)
    assert checker.waiting == 2


def test_the_dedupe_key_is_the_json_list_of_source_and_id() -> None:
    """Markers already in Redis carry this form: it must not change."""
    texts = ["erp", 'a"b', "back\\slash", "é中", "\x00\x1f\x7f", "\ud800", "\u2028", ""]
    for source in texts:
        for event_id in texts:
            key = EventIdentity(source, event_id).dedupe_key
            assert key == json.dumps([source, event_id], ensure_ascii=False)
