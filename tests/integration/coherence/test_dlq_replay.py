"""Dead letters can be listed and replayed once they validate."""

from __future__ import annotations

import json
import uuid

import pytest

from services.adapters.contract_files import EVENT_SCHEMA, validator_for
from services.adapters.dead_letter_topic import read_dead_letters, replay
from services.adapters.embedded_broker import Broker
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.core.events import digest_of, new_event

pytestmark = [pytest.mark.integration]


def _topics(name: str) -> tuple[str, str]:
    """A dead-letter topic and its main topic, new for this run: a broker that outlives
    the session (CACHECOH_TEST_KAFKA_BOOTSTRAP) still holds an earlier run's letters."""
    main = f"{name}-{uuid.uuid4().hex[:8]}"
    return f"{main}.dlq", main


def test_replay_republishes_only_what_validates(broker: Broker) -> None:
    dlq, main = _topics("replay-test")
    ensure_topics(broker.bootstrap, [(dlq, 2), (main, 2)])
    good = new_event("iphone_15", ["weight"], 3, source="t")
    with SpecUpdatePublisher(broker.bootstrap, topic=dlq) as letters:
        letters.publish_raw(good.kafka_key, good.to_bytes(), [("reason", b"unknown_product")])
        letters.publish_raw(b"iphone_15", b"{broken", [("reason", b"not_json")])
    validator = validator_for(EVENT_SCHEMA)
    read = list(read_dead_letters(broker.bootstrap, dlq))
    assert sorted(letter.reason for letter in read) == ["not_json", "unknown_product"]
    dry = replay(iter(read), validator, None)
    assert dry.replayed == 1 and dry.still_invalid == {"not_json": 1}
    with SpecUpdatePublisher(broker.bootstrap, topic=main) as publisher:
        report = replay(iter(read), validator, publisher)
    assert report.to_dict() == {
        "read": 2,
        "replayed": 1,
        "duplicates": 0,
        "still_invalid": {"not_json": 1},
    }
    republished = list(read_dead_letters(broker.bootstrap, main))
    assert [json.loads(r.value)["id"] for r in republished] == [good.event_id]


def test_replay_dedupes_by_source_and_id_and_checks_the_key_digest(
    broker: Broker,
) -> None:
    dlq, main = _topics("replay-identity")
    ensure_topics(broker.bootstrap, [(dlq, 1), (main, 1)])
    erp = new_event("iphone_15", ["price"], 3, source="erp", event_id="same")
    pim = new_event("iphone_15", ["battery_life"], 4, source="pim", event_id="same")
    moved = new_event("iphone_16", ["weight"], 2, source="erp", event_id="moved")
    with SpecUpdatePublisher(broker.bootstrap, topic=dlq) as letters:
        for event in (erp, erp, pim):
            digest = digest_of(event.kafka_key).encode()
            letters.publish_raw(digest, event.to_bytes(), [("key_digest", digest)])
        # dead-lettered for a key that was not its product id
        wrong = digest_of(b"someone@example.com").encode()
        letters.publish_raw(wrong, moved.to_bytes(), [("key_digest", wrong)])
    read = list(read_dead_letters(broker.bootstrap, dlq))
    with SpecUpdatePublisher(broker.bootstrap, topic=main) as publisher:
        report = replay(iter(read), validator_for(EVENT_SCHEMA), publisher)
    assert report.to_dict() == {
        "read": 4,
        "replayed": 2,
        "duplicates": 1,
        "still_invalid": {"key_mismatch": 1},
    }
    republished = list(read_dead_letters(broker.bootstrap, main))
    assert sorted(json.loads(r.value)["source"] for r in republished) == ["erp", "pim"]
    assert {r.key for r in republished} == {b"iphone_15"}
