"""The load check at CI size: a refresh storm against a small token bucket.

No timing is asserted (the figures come from ``cachecoh check load --json`` and move with
the machine's load); what is asserted holds at any speed: every key's upstream calls,
counted where they reached the engine, fit the bucket in every window, and a storm of
``no-cache`` requests far beyond the bucket's rate is refused (429) rather than passed on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.harness.checks.load import LoadConfig, LoadMix, run_load

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_upstream_calls_per_key_never_exceed_the_bucket(tmp_path: Path) -> None:
    config = LoadConfig(
        seconds=2,
        concurrency=8,
        hot_questions=10,
        refresh_keys=1,
        bucket_capacity=3,
        bucket_refill_per_s=0.2,
        breaker_misses_per_minute=100_000,
        mixes=(
            LoadMix("hit_heavy", hot_share=0.75, distinct_share=0.05, refresh_share=0.2),
            LoadMix("miss_heavy", hot_share=0.1, distinct_share=0.7, refresh_share=0.2),
        ),
        work_dir=tmp_path,
    )
    report = run_load(config)
    bucket = report["bucket"]
    assert report["passed"], report
    assert bucket["violations"] == 0 and bucket["tightest_margin"] >= 0
    assert bucket["unattributed_upstream_calls"] == 0
    storm = bucket["refresh_keys"][0]
    assert storm["upstream_calls"] <= storm["allowed_by_bucket"]
    # A one-key storm of no-cache requests is far beyond 3 + 0.2/s: the bucket refused some.
    assert report["bucket_rejections"] > 0
    assert sum(int(m["statuses"].get("429", 0)) for m in report["mixes"].values()) > 0
    for mix in report["mixes"].values():
        assert mix["requests"] > 0 and mix["upstream_calls"] > 0
    assert set(report["memory_mib"]["start"]) == {"gateway", "engine", "upstream_ledger", "redis"}
