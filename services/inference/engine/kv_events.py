"""The engine's KV-event publisher: vLLM's ``ZmqEventPublisher`` wire format over pyzmq.

Like vLLM, an endpoint with a wildcard (``tcp://*:5557``) or an ``ipc://``/``inproc://``
address is bound, any other is connected to; messages are (topic, 8-byte big-endian
sequence number, msgpack ``KVEventBatch``), the sequence counting from 0 per process, so
a subscriber sees a restart as the sequence starting over. vLLM's optional replay socket
is not offered: a subscriber that misses a message forgets that replica's blocks instead.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Sequence

import zmq

from services.core.kv_events import KVCacheEvent, KVEventBatch
from services.inference.kv_event_wire import encode_frames

logger = logging.getLogger(__name__)


def binds(endpoint: str) -> bool:
    """vLLM's rule: bind stable (wildcard, ipc, inproc) endpoints, connect to the rest."""
    return "*" in endpoint or "::" in endpoint or endpoint.startswith(("ipc://", "inproc://"))


class ZmqKvEventPublisher:
    def __init__(
        self,
        endpoint: str,
        topic: str = "",
        *,
        hwm: int = 100_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.PUB)
        self._socket.set_hwm(hwm)
        if binds(endpoint):
            self._socket.bind(endpoint)
        else:
            self._socket.connect(endpoint)
        self._topic = topic
        self._sequence = itertools.count()
        self._clock = clock
        self.dropped_batches = 0

    def publish(self, events: Sequence[KVCacheEvent]) -> None:
        batch = KVEventBatch(ts=self._clock(), events=tuple(events), data_parallel_rank=0)
        frames = encode_frames(self._topic, next(self._sequence), batch)
        try:
            # PUB never blocks: past the high-water mark ZMQ drops, as for vLLM.
            self._socket.send_multipart(frames, flags=zmq.NOBLOCK)
        except zmq.Again:
            self.dropped_batches += 1

    def close(self) -> None:
        self._socket.close(linger=0)
        self._context.term()
