"""Dead letters through the worker's own faust producer, acknowledged before moving on."""

from __future__ import annotations

from typing import Any

from services.coherence.handler import RawRecord
from services.core.errors import DeadLetterUnavailable, InvalidEvent
from services.core.events import digest_of


class FaustDeadLetters:
    """The record's value is kept (for replay); its key is not: the letter is keyed by
    the key's digest (header ``key_digest`` too), so personal data a producer put in a
    key never rests in the DLQ. Replay re-checks the key by that digest."""

    def __init__(self, topic: Any) -> None:
        self._topic = topic

    async def send(self, record: RawRecord, error: InvalidEvent) -> None:
        headers = [
            ("reason", error.reason.value.encode()),
            ("json_path", error.json_path.encode()),
            ("detail", error.detail.encode()[:500]),
            ("key_digest", digest_of(record.key).encode()),
            ("source_topic", record.topic.encode()),
            ("source_partition", str(record.partition).encode()),
            ("source_offset", str(record.offset).encode()),
        ]
        try:
            pending = await self._topic.send(
                key=digest_of(record.key).encode(), value=record.value or b"", headers=headers
            )
            await pending  # the broker's acknowledgement
        except Exception as exc:
            raise DeadLetterUnavailable(
                f"DLQ send failed: {exc.__class__.__name__}: {exc}"
            ) from exc
