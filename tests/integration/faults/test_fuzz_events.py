"""Promise 3 under fuzzing: hypothesis-generated malformed records, interleaved with valid
events, through the real broker to one real worker (Postgres audit).

The 10,000-record figure comes from ``cachecoh check fuzz --events 10000 --json``. Here
300 + 60 (seed 11): each of the 13 malformed kinds is drawn 7 times or more, and the test
checks that every kind was drawn.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.harness.faults.fuzz import FuzzConfig, run_fuzz
from services.harness.faults.malformed_events import KNOWN_BUG_MALFORMED, MALFORMED_KINDS
from services.harness.faults.rig import RigConfig

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MALFORMED, VALID = 300, 60


def test_malformed_records_go_to_the_dlq_and_valid_ones_are_applied(
    postgres_url: str, tmp_path: Path
) -> None:
    report = run_fuzz(
        FuzzConfig(
            malformed=MALFORMED,
            valid=VALID,
            seed=11,
            rig=RigConfig(redis_aof=False, database_url=postgres_url, work_dir=tmp_path),
        )
    )
    details = report.details
    assert details["all_records_consumed"], details["failures"]
    assert report.malformed_dead_lettered == report.malformed_published == MALFORMED
    assert report.valid_applied == report.valid_published == VALID
    assert (report.worker_restarts, report.agent_crashes) == (0, 0)
    assert details["reason_mismatches"] == 0
    assert details["dlq_bytes_differ"] == 0  # the original bytes are kept
    expected_kinds = set(MALFORMED_KINDS) - KNOWN_BUG_MALFORMED
    assert expected_kinds <= set(details["by_kind"])  # every class was generated
    assert report.passed
