"""The fetch-wait governor: starving partitions raise the wait, calm lowers it again."""

from __future__ import annotations

from services.coherence.fetch_wait import FetchWaitGovernor


def test_a_partition_that_stops_fetching_while_behind_doubles_the_wait() -> None:
    governor = FetchWaitGovernor(floor_ms=2, cap_ms=64)
    assert governor.observe({0: 100}, {0: 40}, now=0) is None  # first sight: no verdict
    assert governor.observe({0: 100}, {0: 40}, now=1) == 4  # no progress while behind
    assert governor.observe({0: 100}, {0: 40}, now=2) == 8
    for t in range(3, 10):
        governor.observe({0: 100}, {0: 40}, now=t)
    assert governor.current_ms == 64  # capped


def test_progress_or_a_caught_up_partition_is_not_starvation() -> None:
    governor = FetchWaitGovernor(floor_ms=2)
    assert governor.observe({0: 100, 1: 10}, {0: 40, 1: 9}, now=0) is None
    assert governor.observe({0: 160, 1: 10}, {0: 90, 1: 9}, now=1) is None  # moving; idle at tail
    assert governor.current_ms == 2


def test_calm_brings_the_wait_back_down_slowly() -> None:
    governor = FetchWaitGovernor(floor_ms=2, relax_after_s=30)
    governor.observe({0: 10}, {0: 1}, now=0)
    governor.observe({0: 10}, {0: 1}, now=1)
    governor.observe({0: 10}, {0: 1}, now=2)
    assert governor.current_ms == 8
    assert governor.observe({0: 10}, {0: 9}, now=3) is None  # caught up: calm starts
    assert governor.observe({0: 10}, {0: 9}, now=20) is None
    assert governor.observe({0: 10}, {0: 9}, now=34) == 4
    assert governor.observe({0: 10}, {0: 9}, now=65) == 2
