"""The event stream of the fault suite: updates at a steady rate, with duplicates,
reordering and events that reuse a recent event's id from another source (CloudEvents
ids are unique per source only: both are events, both must be applied), through the
real publisher.

An update first advances the fact version, then publishes the event that announces it
(the outbox order: facts change, then the event). A publish the broker does not take
is retried with the same event id, as the outbox relay does; only broker-acknowledged
events count as published.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from services.adapters.kafka_publisher import SpecUpdatePublisher
from services.core.errors import PublishError
from services.core.events import ProductSpecUpdated, new_event
from services.harness.faults.ground_truth import AckWatermark, FactKey, FactVersions, PublishedEvent

log = logging.getLogger(__name__)
EVENT_SOURCE = "cachecoh-faults"
#: The source of events that reuse an id of ``EVENT_SOURCE``'s.
OTHER_SOURCE = "cachecoh-faults-pim"


@dataclass(frozen=True, slots=True)
class UpdateShape:
    rate: float = 40.0  # updates per second
    duplicate_fraction: float = 0.05  # republish a recent event with the same id
    reorder_fraction: float = 0.05  # publish v+2 before v+1 for one slot
    same_id_fraction: float = 0.05  # another source's event with a recent event's id


@dataclass(frozen=True, slots=True)
class UpdateCounts:
    events_published: int  # distinct event ids the broker acknowledged
    records_published: int  # including duplicates
    duplicates_published: int
    same_id_other_source: int  # distinct events whose id another source also used
    reordered_pairs: int
    publish_retries: int
    unpublished: int  # gave up at shutdown (never acknowledged, not counted as lost)


class UpdateStream:
    def __init__(
        self,
        publisher: SpecUpdatePublisher,
        facts: FactVersions,
        watermark: AckWatermark,
        keys: Sequence[FactKey],
        shape: UpdateShape,
        rng: random.Random,
    ) -> None:
        self._publisher = publisher
        self._facts = facts
        self._watermark = watermark
        self._keys = keys
        self._shape = shape
        self._rng = rng
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="updates", daemon=True)
        self._recent: deque[ProductSpecUpdated] = deque(maxlen=200)
        self.published: dict[str, PublishedEvent] = {}
        self._records = 0
        self._duplicates = 0
        self._same_id = 0
        self._reused: set[str] = set()
        self._reordered = 0
        self._retries = 0
        self._unpublished = 0

    def start(self) -> UpdateStream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def counts(self) -> UpdateCounts:
        return UpdateCounts(
            events_published=len(self.published),
            records_published=self._records,
            duplicates_published=self._duplicates,
            same_id_other_source=self._same_id,
            reordered_pairs=self._reordered,
            publish_retries=self._retries,
            unpublished=self._unpublished,
        )

    def _run(self) -> None:
        interval = 1.0 / self._shape.rate
        due = time.monotonic()
        while not self._stop.is_set():
            due += interval
            self._one_step()
            delay = due - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)
            else:
                due = time.monotonic()  # behind (a broker stall): don't burst to catch up

    def _one_step(self) -> None:
        roll = self._rng.random()
        if roll < self._shape.duplicate_fraction and self._recent:
            self._publish(self._rng.choice(self._recent), duplicate=True)
            return
        key = self._rng.choice(self._keys)
        same_id_until = self._shape.duplicate_fraction + self._shape.same_id_fraction
        if roll < same_id_until and self._recent:
            reused = self._rng.choice(self._recent)
            siblings = [
                k
                for k in self._keys
                if k.product == reused.product_id and k.slot != reused.changed_fields[0]
            ]
            # Each id is reused once: two OTHER_SOURCE events with one id would be one event.
            if reused.source == EVENT_SOURCE and siblings and reused.event_id not in self._reused:
                # The same product, another fact, another source, the same id: a dedupe by
                # id alone would drop it and leave that fact's old answers servable.
                other = self._rng.choice(siblings)
                event = new_event(
                    other.product,
                    [other.slot],
                    self._facts.advance(other),
                    source=OTHER_SOURCE,
                    event_id=reused.event_id,
                )
                self._reused.add(reused.event_id)
                if self._publish(event):
                    self._same_id += 1
                return
        if roll < same_id_until + self._shape.reorder_fraction:
            lower = self._event(key, self._facts.advance(key))
            higher = self._event(key, self._facts.advance(key))
            if self._publish(higher) and self._publish(lower):
                self._reordered += 1
            return
        self._publish(self._event(key, self._facts.advance(key)))

    @staticmethod
    def _event(key: FactKey, version: int) -> ProductSpecUpdated:
        return new_event(key.product, [key.slot], version, source=EVENT_SOURCE)

    def _publish(self, event: ProductSpecUpdated, *, duplicate: bool = False) -> bool:
        while True:
            try:
                landed = self._publisher.publish(event)
                break
            except PublishError as exc:
                if self._stop.is_set():
                    self._unpublished += 0 if duplicate else 1
                    return False
                self._retries += 1
                log.debug("publish retried: %s", exc)
                self._stop.wait(0.2)
        published = PublishedEvent(
            event_id=str(event.identity),
            key=FactKey(event.product_id, event.changed_fields[0]),
            version=event.spec_version,
            partition=landed.partition,
            offset=landed.offset,
            published_at=time.monotonic(),
        )
        self._watermark.record(published)
        self._records += 1
        if duplicate:
            self._duplicates += 1
        else:
            if published.event_id in self.published:
                raise RuntimeError(f"two distinct events share the identity {published.event_id}")
            self.published[published.event_id] = published
            self._recent.append(event)
        return True
