"""vLLM's KV-event wire format (``--kv-events-config`` with the ``zmq`` publisher).

Each ZMQ message has three frames: the topic (UTF-8, ``KVEventsConfig.topic``), an 8-byte
big-endian sequence number (0, 1, 2, ... per publisher process) and a msgpack payload, a
``KVEventBatch`` encoded by msgspec as in vLLM v0.11: ``[ts, events, data_parallel_rank]``
with each event an array tagged by its class name::

    ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium]
    ["BlockRemoved", block_hashes, medium]
    ["AllBlocksCleared"]

Newer vLLM releases encode events as maps tagged ``{"type": "BlockStored", ...}`` with more
fields (``lora_name``, ``extra_keys``, ...); the decoder reads both layouts, int and bytes
block hashes, and skips event types it does not know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from services.core.errors import CachecohError
from services.core.kv_events import (
    AllBlocksCleared,
    BlockRemoved,
    BlockStored,
    KVCacheEvent,
    KVEventBatch,
    external_block_hash,
)

SEQUENCE_BYTES = 8


class KvEventDecodeError(CachecohError):
    """A KV-event message that is not vLLM's wire format."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"malformed KV event message: {reason}")


@dataclass(frozen=True, slots=True)
class KvEventMessage:
    topic: str
    sequence: int
    batch: KVEventBatch
    #: Events of types this decoder does not know (skipped).
    unknown_events: int = 0


def _event_to_wire(event: KVCacheEvent) -> list[Any]:
    if isinstance(event, BlockStored):
        return [
            "BlockStored",
            list(event.block_hashes),
            event.parent_block_hash,
            list(event.token_ids),
            event.block_size,
            event.lora_id,
            event.medium,
        ]
    if isinstance(event, BlockRemoved):
        return ["BlockRemoved", list(event.block_hashes), event.medium]
    return ["AllBlocksCleared"]


def encode_frames(topic: str, sequence: int, batch: KVEventBatch) -> list[bytes]:
    """The three frames vLLM's ``ZmqEventPublisher`` sends for one batch."""
    payload = msgpack.packb(
        [batch.ts, [_event_to_wire(e) for e in batch.events], batch.data_parallel_rank],
        use_bin_type=True,
    )
    return [topic.encode("utf-8"), sequence.to_bytes(SEQUENCE_BYTES, "big"), payload]


def _hashes(raw: Any) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(h, int | bytes) for h in raw):
        raise KvEventDecodeError("block_hashes is not a list of ints or bytes")
    return tuple(external_block_hash(h) for h in raw)


def _optional_hash(raw: Any) -> int | None:
    if raw is None:
        return None
    if not isinstance(raw, int | bytes):
        raise KvEventDecodeError("parent_block_hash is not an int, bytes or nil")
    return external_block_hash(raw)


def _stored(fields: Mapping[str, Any]) -> BlockStored:
    tokens = fields.get("token_ids")
    size = fields.get("block_size")
    if not isinstance(tokens, list) or not isinstance(size, int):
        raise KvEventDecodeError("BlockStored without token_ids or block_size")
    lora_id = fields.get("lora_id")
    medium = fields.get("medium")
    return BlockStored(
        block_hashes=_hashes(fields.get("block_hashes")),
        parent_block_hash=_optional_hash(fields.get("parent_block_hash")),
        token_ids=tuple(int(t) for t in tokens),
        block_size=size,
        lora_id=lora_id if isinstance(lora_id, int) else None,
        medium=medium if isinstance(medium, str) else None,
    )


def _removed(fields: Mapping[str, Any]) -> BlockRemoved:
    medium = fields.get("medium")
    return BlockRemoved(
        block_hashes=_hashes(fields.get("block_hashes")),
        medium=medium if isinstance(medium, str) else None,
    )


_ARRAY_FIELDS = {
    "BlockStored": (
        "block_hashes",
        "parent_block_hash",
        "token_ids",
        "block_size",
        "lora_id",
        "medium",
    ),
    "BlockRemoved": ("block_hashes", "medium"),
    "AllBlocksCleared": (),
}


def _event_from_wire(raw: Any) -> KVCacheEvent | None:
    """One event, or ``None`` for an event type not known here."""
    if isinstance(raw, list) and raw and isinstance(raw[0], str):
        tag, values = raw[0], raw[1:]
        names = _ARRAY_FIELDS.get(tag)
        if names is None:
            return None
        fields: Mapping[str, Any] = dict(zip(names, values, strict=False))
    elif isinstance(raw, dict) and isinstance(raw.get("type"), str):
        tag, fields = raw["type"], raw
    else:
        raise KvEventDecodeError("an event is neither a tagged array nor a tagged map")
    if tag == "BlockStored":
        return _stored(fields)
    if tag == "BlockRemoved":
        return _removed(fields)
    if tag == "AllBlocksCleared":
        return AllBlocksCleared()
    return None


def decode_frames(frames: Sequence[bytes]) -> KvEventMessage:
    """Parse one ZMQ message (topic, sequence, payload)."""
    if len(frames) != 3:
        raise KvEventDecodeError(f"{len(frames)} frames, expected 3")
    topic_frame, sequence_frame, payload = frames
    if len(sequence_frame) != SEQUENCE_BYTES:
        raise KvEventDecodeError(f"sequence frame of {len(sequence_frame)} bytes")
    try:
        raw = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        topic = topic_frame.decode("utf-8")
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise KvEventDecodeError(f"payload is not msgpack: {exc}") from exc
    if isinstance(raw, dict):  # a map-encoded batch
        raw = [raw.get("ts"), raw.get("events"), raw.get("data_parallel_rank")]
    if not isinstance(raw, list) or len(raw) < 2 or not isinstance(raw[1], list):
        raise KvEventDecodeError("payload is not [ts, events, data_parallel_rank]")
    ts = raw[0]
    rank = raw[2] if len(raw) > 2 else None
    events: list[KVCacheEvent] = []
    unknown = 0
    for item in raw[1]:
        event = _event_from_wire(item)
        if event is None:
            unknown += 1
        else:
            events.append(event)
    return KvEventMessage(
        topic=topic,
        sequence=int.from_bytes(sequence_frame, "big"),
        batch=KVEventBatch(
            ts=float(ts) if isinstance(ts, int | float) else 0.0,
            events=tuple(events),
            data_parallel_rank=rank if isinstance(rank, int) else None,
        ),
        unknown_events=unknown,
    )
