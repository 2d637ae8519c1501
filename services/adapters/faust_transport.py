"""A faust transport tuned for the worker: a bounded long poll, batches handed over whole.

faust-streaming hard-codes ``fetch_max_wait_ms=1500`` for worker consumers. Against a
broker that does not answer a fetch early when data arrives, that puts up to 1.5 s of
invalidation lag on every event; a short bound keeps the lag in milliseconds, and
``FetchWaitControl`` lets the worker raise it when a partition starves
(``fetch_wait.FetchWaitGovernor``).

faust's fetcher hands records to agents one by one (a task race per record, then the
stream's per-event machinery). The worker applies records in batches anyway, so its
consumer's drain loop puts each fetch's records, as one batch, on a ``BatchHandoff``
that the applying task reads. faust keeps the group membership, assignment, seeks,
commits (of acked offsets only) and the app's lifecycle: this replaces only the
delivery from the fetch to the code that applies it.

faust runs its aiokafka consumer in a thread of its own; here that service runs on the
app's event loop (``InLoopConsumerThread``), so a fetch, a commit or a seek is a plain
await instead of a hop between two loops and a GIL hand-over.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from inspect import isawaitable
from typing import Any

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP
from mode import Service
from mode.utils.futures import maybe_async


class FetchWaitControl:
    """The aiokafka consumers of this process and their fetch wait (read per request)."""

    def __init__(self, wait_ms: int) -> None:
        self.wait_ms = wait_ms
        self._consumers: list[Any] = []
        self._lock = threading.Lock()

    def register(self, consumer: Any) -> None:
        with self._lock:
            self._consumers.append(consumer)
            self._apply(consumer)

    def set(self, wait_ms: int) -> None:
        with self._lock:
            self.wait_ms = wait_ms
            for consumer in self._consumers:
                self._apply(consumer)

    def _apply(self, consumer: Any) -> None:
        # aiokafka reads these private attributes when it builds each fetch request, so
        # the next fetch uses the new wait.
        consumer._fetch_max_wait_ms = self.wait_ms
        if consumer._fetcher is not None:
            consumer._fetcher._fetch_max_wait_ms = self.wait_ms


@dataclass(frozen=True, slots=True)
class FetchedBatch:
    """The records of one fetch (faust ``Message`` objects, tracked as pending acks)."""

    messages: list[Any]


class BatchHandoff:
    """Fetched batches, from the consumer's drain loop to the applying task.

    Up to ``depth`` fetches wait while one is applied (backpressure without holding many
    records in memory), and the applying task takes every fetch that waits as one batch
    (``take``): a worker that fell behind catches up in fewer, larger batches (one Redis
    round trip and one audit submission each) instead of one batch per fetch."""

    def __init__(self, depth: int = 4) -> None:
        self.depth = depth
        self._queue: asyncio.Queue[FetchedBatch] | None = None

    @property
    def queue(self) -> asyncio.Queue[FetchedBatch]:
        if self._queue is None:  # created on the app's loop, at first use
            self._queue = asyncio.Queue(maxsize=self.depth)
        return self._queue

    async def take(self, limit: int) -> list[Any]:
        """The next fetch's records, with those of the fetches queued behind it (whole
        fetches, in fetch order, while fewer than ``limit`` records are taken)."""
        queue = self.queue
        messages = (await queue.get()).messages
        while len(messages) < limit and not queue.empty():
            messages = messages + queue.get_nowait().messages
        return messages


async def drain_in_batches(consumer: Any, fetcher: Any, handoff: BatchHandoff) -> None:
    """faust's drain loop (``Consumer._drain_messages``), one batch per fetch.

    Keeps what faust's loop does with each record (skip what was already read, record
    offset gaps so commits can pass them, mark it pending an ack, remember the read
    offset, commit every N acks), but hands the fetch over whole instead of awaiting a
    callback per record."""
    consumer_stopped = consumer._stopped.is_set
    fetcher_stopped = fetcher._stopped.is_set
    read_offset = consumer._read_offset
    acks_enabled_for = consumer.app.topics.acks_enabled_for
    commit_every = consumer._commit_every
    pending = consumer._unacked_messages.add
    try:
        while not (consumer_stopped() or fetcher_stopped()):
            batch: list[Any] = []
            for tp, message in await _fetched(consumer, wait_s=1.0):
                last = read_offset[tp]
                if last is not None and message.offset < last:
                    continue  # read before a seek back; faust drops these too
                if last and message.offset - last > 1 and acks_enabled_for(message.topic):
                    await consumer._add_gap(tp, last + 1, message.offset)
                # Pending an ack (what ``track_message`` does, minus faust's per-message
                # sensors: the worker exports its own metrics, and nothing reads faust's).
                pending(message)
                read_offset[tp] = message.offset
                batch.append(message)
            if commit_every is not None and consumer._n_acked >= commit_every:
                consumer._n_acked = 0
                await consumer.commit()
            if batch:
                await handoff.queue.put(FetchedBatch(batch))
            else:
                await asyncio.sleep(0)
    except consumer.consumer_stopped_errors:
        if consumer.transport.app.should_stop:
            return
        raise
    except asyncio.CancelledError:
        if consumer.transport.app.should_stop:
            return
        raise


async def _fetched(consumer: Any, wait_s: float) -> list[tuple[Any, Any]]:
    """The records of one fetch, as faust ``Message`` objects, partition by partition.

    faust's ``Consumer.getmany`` minus its per-record work that nothing here reads: the
    round-robin scheduler across partitions (the whole fetch is applied as one batch)
    and a high-water read and monitor update per record (the partition watcher reads
    the high-water marks once a second). Whenever the flow is paused, faust's own
    ``getmany`` runs (it waits for the flow and seeks back to the committed offsets)."""
    if not consumer.flow_active:
        return [item async for item in consumer.getmany(timeout=wait_s)]
    records, active = await consumer._wait_next_records(wait_s)
    generation = consumer.app.consumer_generation_id  # read after the wait, as faust does
    if records is None or consumer.should_stop:
        return []
    if not consumer.flow_active:
        # Paused while fetching (a rebalance): what faust does, seek back to the
        # committed offsets, so the fetched records are read again.
        await consumer.perform_seek()
        return []
    out: list[tuple[Any, Any]] = []
    app = consumer.app
    buffered = consumer._buffered_partitions
    to_message = consumer._to_message
    for tp, batch in records.items():
        if active is not None and tp not in active and tp not in buffered:
            continue
        for record in batch:
            if app.consumer_generation_id != generation:
                return out  # a rebalance began: faust cancels the rest of the fetch too
            out.append((tp, to_message(tp, record)))
    return out


class InLoopConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
    """faust's aiokafka consumer service, run on the app's own event loop.

    faust runs it as a mode ``ServiceThread``: a second thread with its own loop, where
    every fetch, commit, seek and rebalance callback crosses threads through two method
    queues (a wake-up of each loop and a GIL hand-over per call). Here the same service
    (faust's code: the aiokafka consumer it creates, its rebalance listener, its commit)
    runs as a plain mode ``Service`` on the app's loop, and a call "to the thread" is a
    plain await. The ``ServiceThread`` methods that start, stop and signal a thread are
    replaced by ``Service``'s own."""

    #: a thread's shutdown flag is set by the thread; here ``Service.stop`` does it all
    wait_for_shutdown = False

    def __init__(self, consumer: faust_aiokafka.Consumer, **kwargs: Any) -> None:
        loop = kwargs.pop("loop", None) or consumer.loop
        super().__init__(consumer, loop=loop, thread_loop=loop, **kwargs)

    @property
    def runs_on_app_loop(self) -> bool:
        return self.thread_loop is self.parent_loop

    async def start(self) -> None:
        self._thread_started.set()  # what ``maybe_start`` checks
        await Service.start(self)

    async def stop(self) -> None:
        await Service.stop(self)

    async def on_stop(self) -> None:
        # A thread stops its consumer in ``on_thread_stop``, on the thread's loop.
        await self.on_thread_stop()

    async def crash(self, reason: BaseException) -> None:
        await Service.crash(self, reason)

    def _stopped_set(self) -> None:
        Service._stopped_set(self)

    def set_shutdown(self) -> None:
        Service.set_shutdown(self)

    async def _stop_children(self) -> None:
        await Service._stop_children(self)

    async def _stop_futures(self) -> None:
        await Service._stop_futures(self)

    async def _stop_exit_stacks(self) -> None:
        await Service._stop_exit_stacks(self)

    async def call_thread(
        self, fun: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any
    ) -> Any:
        # faust passes plain functions too (``subscribe``), as mode's method queue allows.
        result = fun(*args, **kwargs)
        return (await result) if isawaitable(result) else result

    async def cast_thread(
        self, fun: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any
    ) -> None:
        self.add_future(maybe_async(fun(*args, **kwargs)))

    async def on_partitions_revoked(self, revoked: set[TP]) -> None:
        await self.consumer.on_partitions_revoked(revoked)

    async def on_partitions_assigned(self, assigned: set[TP], generation_id: int = 0) -> None:
        await self.consumer.on_partitions_assigned(assigned, generation_id)


def tuned_app_class(control: FetchWaitControl, handoff: BatchHandoff) -> type[faust.App]:
    class ConsumerThread(InLoopConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            control.register(consumer)
            return consumer

    class TunedConsumer(faust_aiokafka.Consumer):
        def _new_consumer_thread(self) -> Any:
            return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

        async def _drain_messages(self, fetcher: Any) -> None:
            await drain_in_batches(self, fetcher, handoff)

    class Transport(faust_aiokafka.Transport):
        Consumer = TunedConsumer

    class App(faust.App):
        def _new_transport(self) -> Any:
            return Transport(self.conf.broker_consumer, self)

    return App
