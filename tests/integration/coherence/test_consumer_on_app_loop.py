"""faust's aiokafka consumer service runs on the app's own event loop: no consumer
thread, a call "to the thread" is a plain await on the caller's loop, the fetch wait
control sees the consumer, and stopping it closes the aiokafka consumer."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from services.adapters.embedded_broker import Broker
from services.adapters.faust_transport import (
    BatchHandoff,
    FetchWaitControl,
    InLoopConsumerThread,
    tuned_app_class,
)

pytestmark = pytest.mark.integration


async def test_the_consumer_runs_on_the_apps_loop(broker: Broker) -> None:
    control = FetchWaitControl(7)
    app = tuned_app_class(control, BatchHandoff())(
        f"cctest-loop-{uuid.uuid4().hex[:8]}",
        broker=f"kafka://{broker.bootstrap}",
        store="memory://",
        web_enabled=False,
        loghandlers=[],
    )
    service = app.consumer._thread
    assert isinstance(service, InLoopConsumerThread)
    loop = asyncio.get_running_loop()
    threads = threading.active_count()
    await service.start()
    try:
        assert service.runs_on_app_loop and service.thread_loop is loop
        assert service._thread is None and threading.active_count() == threads
        consumer = service._consumer
        assert consumer is not None and control._consumers == [consumer]
        assert consumer._fetch_max_wait_ms == 7

        async def where() -> tuple[int, asyncio.AbstractEventLoop]:
            return threading.get_ident(), asyncio.get_running_loop()

        assert await service.call_thread(where) == (threading.get_ident(), loop)
        assert await service.call_thread(threading.get_ident) == threading.get_ident()
        control.set(11)  # the governor's raise reaches the consumer
        assert consumer._fetch_max_wait_ms == 11
    finally:
        await service.stop()
    assert consumer._closed
