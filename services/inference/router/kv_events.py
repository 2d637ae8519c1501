"""Subscribe to each replica's KV-event stream (ZMQ SUB) and keep the block index current.

One task per replica: a SUB socket connected to the replica's ``--kv-events-config``
endpoint, filtered by topic, and a socket monitor. Each message is decoded
(``kv_event_wire``) and applied to the shared :class:`KvBlockIndex`. The replica's entries
are dropped whenever they can no longer be trusted: an ``AllBlocksCleared`` event, a
sequence gap (missed messages), the sequence starting over (a restart), a lost
connection, or a message that does not decode.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

import zmq
import zmq.asyncio
from prometheus_client import CollectorRegistry, Counter, Gauge
from zmq.utils.monitor import parse_monitor_message

from services.core.kv_index import EventSequences, KvBlockIndex, SequenceVerdict
from services.inference.kv_event_wire import KvEventDecodeError, decode_frames

logger = logging.getLogger(__name__)


class KvEventMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.messages = Counter(
            "cachecoh_router_kv_event_messages",
            "KV-event messages received, by replica and sequence verdict "
            "(first, in_order, gap, restart, malformed).",
            ["replica", "verdict"],
            registry=registry,
        )
        self.forgotten = Counter(
            "cachecoh_router_kv_index_forgotten",
            "Times a replica's index entries were dropped, by cause.",
            ["replica", "cause"],
            registry=registry,
        )
        self.blocks = Gauge(
            "cachecoh_router_kv_index_blocks",
            "Blocks the index says the replica holds.",
            ["replica"],
            registry=registry,
        )


class KvEventSubscriber:
    def __init__(
        self,
        endpoints: Mapping[str, str],
        topic: str,
        index: KvBlockIndex,
        metrics: KvEventMetrics,
    ) -> None:
        """``endpoints``: replica name -> ZMQ endpoint of its KV-event publisher."""
        self._endpoints = dict(endpoints)
        self._topic = topic.encode("utf-8")
        self._index = index
        self._sequences = EventSequences()
        self._metrics = metrics
        self._context = zmq.asyncio.Context()

    def forget(self, replica: str, cause: str) -> None:
        dropped = self._index.forget_replica(replica)
        self._metrics.forgotten.labels(replica=replica, cause=cause).inc()
        self._metrics.blocks.labels(replica=replica).set(0)
        if dropped:
            logger.warning("replica %s: dropped %d indexed blocks (%s)", replica, dropped, cause)

    async def run(self) -> None:
        try:
            await asyncio.gather(*(self._follow(n, e) for n, e in self._endpoints.items()))
        finally:
            self._context.destroy(linger=0)

    async def _follow(self, replica: str, endpoint: str, retry_seconds: float = 1.0) -> None:
        while True:
            try:
                await self._subscribe(replica, endpoint)
            except zmq.ZMQError as exc:
                # ZMQ reconnects by itself; an error here is the socket's, so start over.
                logger.warning("replica %s: KV-event subscription failed: %s", replica, exc)
                self._sequences.lost(replica)
                self.forget(replica, "subscription_error")
                await asyncio.sleep(retry_seconds)

    async def _subscribe(self, replica: str, endpoint: str) -> None:
        socket = self._context.socket(zmq.SUB)
        socket.setsockopt(zmq.SUBSCRIBE, self._topic)
        monitor = socket.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        socket.connect(endpoint)
        poller = zmq.asyncio.Poller()
        poller.register(socket, zmq.POLLIN)
        poller.register(monitor, zmq.POLLIN)
        try:
            while True:
                ready = dict(await poller.poll())
                if monitor in ready:
                    self._connection_event(replica, await monitor.recv_multipart())
                if socket in ready:
                    self._message(replica, await socket.recv_multipart())
        finally:
            socket.disable_monitor()
            monitor.close(linger=0)
            socket.close(linger=0)

    def _connection_event(self, replica: str, frames: list[bytes]) -> None:
        event = parse_monitor_message(frames)["event"]
        if event == zmq.EVENT_DISCONNECTED:
            # Whatever happens until we are back is unknown: start from nothing.
            self._sequences.lost(replica)
            self.forget(replica, "disconnected")

    def _message(self, replica: str, frames: list[bytes]) -> None:
        try:
            message = decode_frames(frames)
        except KvEventDecodeError as exc:
            logger.warning("replica %s: %s", replica, exc)
            self._metrics.messages.labels(replica=replica, verdict="malformed").inc()
            self._sequences.lost(replica)
            self.forget(replica, "malformed")
            return
        verdict = self._sequences.observe(replica, message.sequence)
        self._metrics.messages.labels(replica=replica, verdict=verdict.value).inc()
        if verdict.forget:
            self.forget(replica, verdict.value)
        elif verdict is SequenceVerdict.FIRST and message.sequence == 0:
            # A publisher that just started has an empty cache.
            self.forget(replica, "restart")
        self._index.apply(replica, message.batch.events)
        self._metrics.blocks.labels(replica=replica).set(self._index.blocks_of(replica))
