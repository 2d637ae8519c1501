"""A faust transport whose consumer long-polls for at most a wait we control.

faust-streaming hard-codes ``fetch_max_wait_ms=1500`` for worker consumers. Against a
broker that does not answer a fetch early when data arrives, that puts up to 1.5 s of
invalidation lag on every event; a short bound keeps the lag in milliseconds, and
``FetchWaitControl`` lets the worker raise it when a partition starves
(``fetch_wait.FetchWaitGovernor``).
"""

from __future__ import annotations

import threading
from typing import Any

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka


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
        # aiokafka reads these private attributes when it builds each fetch request;
        # an int assignment is atomic, so the consumer thread sees it on its next fetch.
        consumer._fetch_max_wait_ms = self.wait_ms
        if consumer._fetcher is not None:
            consumer._fetcher._fetch_max_wait_ms = self.wait_ms


def tuned_app_class(control: FetchWaitControl) -> type[faust.App]:
    class ConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            control.register(consumer)
            return consumer

    class TunedConsumer(faust_aiokafka.Consumer):
        def _new_consumer_thread(self) -> Any:
            return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

    class Transport(faust_aiokafka.Transport):
        Consumer = TunedConsumer

    class App(faust.App):
        def _new_transport(self) -> Any:
            return Transport(self.conf.broker_consumer, self)

    return App
