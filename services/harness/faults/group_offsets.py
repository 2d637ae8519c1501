"""Watch the worker group's committed offsets (what the coherence worker acknowledged).

kafka-python's admin client works against Tansu (its group consumer does not), so a
thread asks ``list_group_offsets`` every ``interval_s`` and hands the offsets to the
watermark. A stalled broker only delays the watermark: a late observation makes the
stale-read check weaker for a moment, never wrong.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Mapping

from kafka import KafkaAdminClient

log = logging.getLogger(__name__)


class GroupOffsetPoller:
    def __init__(
        self,
        bootstrap: str,
        group: str,
        topic: str,
        on_committed: Callable[[Mapping[int, int]], None],
        *,
        interval_s: float = 0.05,
    ) -> None:
        self._bootstrap = bootstrap
        self._group = group
        self._topic = topic
        self._on_committed = on_committed
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="group-offsets", daemon=True)
        self.polls = 0
        self.poll_errors = 0
        self.committed: dict[int, int] = {}

    def start(self) -> GroupOffsetPoller:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _admin(self) -> KafkaAdminClient:
        return KafkaAdminClient(
            bootstrap_servers=self._bootstrap.split(","),
            client_id="cachecoh-faults-offsets",
            request_timeout_ms=3000,
            bootstrap_timeout_ms=3000,
        )

    def _run(self) -> None:
        admin: KafkaAdminClient | None = None
        while not self._stop.is_set():
            try:
                admin = admin or self._admin()
                offsets = admin.list_group_offsets(self._group).get(self._group, {})
                committed = {
                    tp.partition: int(meta.offset)
                    for tp, meta in offsets.items()
                    if tp.topic == self._topic and meta.offset is not None and meta.offset >= 0
                }
                self.committed = committed
                self._on_committed(committed)
                self.polls += 1
            except Exception as exc:  # noqa: BLE001 - the poller outlives any broker fault
                self.poll_errors += 1
                log.debug("group offsets unavailable: %s", exc)
                if admin is not None:
                    with contextlib.suppress(Exception):
                        admin.close()
                admin = None
            self._stop.wait(self._interval_s)
        if admin is not None:
            with contextlib.suppress(Exception):
                admin.close()
