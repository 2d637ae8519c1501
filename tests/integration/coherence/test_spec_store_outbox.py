"""Spec store + transactional outbox + relay against real Postgres and the real broker."""

from __future__ import annotations

import json
import uuid

import pytest
from kafka import KafkaConsumer, TopicPartition

from services.adapters.embedded_broker import Broker, free_port
from services.adapters.kafka_publisher import SpecUpdatePublisher, ensure_topics
from services.adapters.sql.engine import make_engine, upgrade
from services.adapters.sql.spec_store import SpecStore
from services.business.relay import OutboxRelay
from services.core.catalog import catalog_from_dict
from services.core.errors import PublishError
from services.paths import DEMO_DATA_DIR

pytestmark = [pytest.mark.integration]


@pytest.fixture
def spec_store(postgres_url: str) -> SpecStore:
    upgrade(postgres_url)
    store = SpecStore(make_engine(postgres_url), topic=f"specs-{uuid.uuid4().hex[:6]}")
    store.seed(catalog_from_dict(json.loads((DEMO_DATA_DIR / "catalog.json").read_text())))
    return store


def test_update_versions_the_row_and_queues_the_event_atomically(spec_store: SpecStore) -> None:
    before = spec_store.get("iphone_15")
    assert before is not None
    event = spec_store.update(
        "iphone_15", {"battery_life.video_playback": {"value": 22, "unit": "h"}}
    )
    assert event is not None and event.changed_fields == ("battery_life.video_playback",)
    after = spec_store.get("iphone_15")
    assert after is not None and after.spec_version == before.spec_version + 1 == event.spec_version
    assert after.specs["battery_life"]["values"]["video_playback"]["value"] == 22
    assert spec_store.version("iphone_15", before.spec_version) is not None  # history kept
    pending = [p for p in spec_store.pending_outbox() if p.event_id == event.event_id]
    assert len(pending) == 1 and pending[0].key == b"iphone_15"
    # an update that changes nothing queues nothing
    assert (
        spec_store.update("iphone_15", {"battery_life.video_playback": {"value": 22, "unit": "h"}})
        is None
    )


def test_relay_publishes_after_a_crash_between_commit_and_publish(
    spec_store: SpecStore, broker: Broker
) -> None:
    ensure_topics(broker.bootstrap, [(spec_store._topic, 1)])
    # committed, then the process "crashed" before publishing: the rows stay pending
    events = [
        spec_store.update("xiaomi_14", {"weight": {"value": 190 + i, "unit": "g"}})
        for i in range(3)
    ]
    ids = [e.event_id for e in events if e]
    # a relay with an unreachable broker publishes nothing and loses nothing
    with pytest.raises(PublishError):
        dead = SpecUpdatePublisher(f"127.0.0.1:{free_port()}", topic=spec_store._topic, timeout_s=2)
        OutboxRelay(spec_store, dead).run_once()
    assert {p.event_id for p in spec_store.pending_outbox()} >= set(ids)

    with SpecUpdatePublisher(broker.bootstrap, topic=spec_store._topic) as publisher:
        assert OutboxRelay(spec_store, publisher).run_once() >= 3
    assert not {p.event_id for p in spec_store.pending_outbox()} & set(ids)

    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False)
    try:
        tp = TopicPartition(spec_store._topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        seen: list[str] = []
        for _ in range(20):
            for records in consumer.poll(timeout_ms=500).values():
                seen += [json.loads(r.value)["id"] for r in records]
            if set(ids) <= set(seen):
                break
    finally:
        consumer.close()
    assert [i for i in seen if i in ids] == ids  # all of them, in order
