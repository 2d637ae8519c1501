"""A faust transport whose consumer long-polls for at most ``fetch_max_wait_ms``.

faust-streaming hard-codes ``fetch_max_wait_ms=1500`` for worker consumers. Against a
broker that does not answer a fetch early when data arrives, that puts up to 1.5 s of
invalidation lag on every event; a short bound keeps the lag in milliseconds.
"""

from __future__ import annotations

from typing import Any

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka


def tuned_app_class(fetch_max_wait_ms: int) -> type[faust.App]:
    class ConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            consumer._fetch_max_wait_ms = fetch_max_wait_ms
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
