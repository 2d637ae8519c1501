"""The dashboard's pure numbers: processes up or down, and coherence numbers that say
"unknown" when no worker reported them rather than 0."""

from __future__ import annotations

from services.core.dashboard import MetricsSource, Sample, Scrape, process_status, summarize

NOW = 1_800_000_000.0


def _worker(last_applied: float, lag: float = 3.0) -> list[Sample]:
    return [
        Sample("cachecoh_coherence_consumer_lag_events", {"partition": "0"}, lag),
        Sample("cachecoh_coherence_consumer_lag_events", {"partition": "1"}, lag / 3),
        Sample("cachecoh_coherence_last_applied_timestamp_seconds", {}, last_applied),
    ]


def test_sources_parse_as_name_equals_url_or_a_bare_url() -> None:
    assert MetricsSource.parse("worker=http://127.0.0.1:9102/metrics") == MetricsSource(
        "worker", "http://127.0.0.1:9102/metrics"
    )
    assert MetricsSource.parse(" http://h:1/metrics?a=b ") == MetricsSource(
        None, "http://h:1/metrics?a=b"
    )


def test_each_process_is_up_or_down_and_named_as_configured_else_by_kind() -> None:
    scrapes = [
        Scrape(MetricsSource(None, "http://e:8100/metrics"), True, [Sample("vllm:x", {}, 1)]),
        Scrape(MetricsSource("worker", "http://w:9102/metrics"), False, []),
        Scrape(MetricsSource(None, "http://r:9103/metrics"), False, []),
        Scrape(
            MetricsSource(None, "http://o:9103/metrics"),
            True,
            [Sample("cachecoh_outbox_pending_rows", {}, 0)],
        ),
    ]
    assert [(p["name"], p["kind"], p["up"]) for p in process_status(scrapes)] == [
        ("engine", "engine", True),
        ("worker", None, False),
        ("r:9103", None, False),
        ("relay", "relay", True),
    ]


def test_with_no_worker_reporting_lag_and_last_event_are_unknown_not_zero() -> None:
    coherence = summarize([Sample("vllm:prefix_cache_hits_total", {}, 5)], now=NOW)["coherence"]
    assert coherence["consumer_lag"] is None
    assert coherence["worker_reporting"] is False
    assert coherence["last_applied_age_s"] is None


def test_a_reporting_worker_gives_max_lag_and_the_age_of_its_last_applied_event() -> None:
    coherence = summarize(_worker(NOW - 42.5), now=NOW)["coherence"]
    assert coherence["consumer_lag"] == 3.0
    assert coherence["worker_reporting"] is True
    assert coherence["last_applied_at"] == NOW - 42.5
    assert coherence["last_applied_age_s"] == 42.5


def test_a_worker_that_applied_nothing_yet_reports_no_age() -> None:
    coherence = summarize(_worker(0.0, lag=0.0), now=NOW)["coherence"]
    assert coherence["consumer_lag"] == 0.0
    assert coherence["worker_reporting"] is True
    assert coherence["last_applied_age_s"] is None


def test_two_workers_date_the_newest_applied_event() -> None:
    samples = _worker(NOW - 100) + _worker(NOW - 7)
    assert summarize(samples, now=NOW)["coherence"]["last_applied_age_s"] == 7


def test_the_replica_state_and_answers_by_kind_are_shown() -> None:
    unknown = summarize([], now=NOW)["replica"]
    assert unknown == {"unverified_lookups": {}, "behind_partitions": None, "lease": None}
    samples = [
        Sample(
            "cachecoh_gateway_unverified_lookups_total",
            {"layer": "request", "reason": "no_lease"},
            4,
        ),
        Sample(
            "cachecoh_gateway_unverified_lookups_total",
            {"layer": "semantic", "reason": "no_lease"},
            3,
        ),
        Sample(
            "cachecoh_gateway_unverified_lookups_total",
            {"layer": "request", "reason": "regressed"},
            1,
        ),
        Sample("cachecoh_coherence_replica_behind_partitions", {}, 2),
        Sample("cachecoh_coherence_replica_lease", {}, 0),
        Sample("cachecoh_gateway_general_answers_total", {"outcome": "hit"}, 5),
        Sample("cachecoh_gateway_grounded_bypasses_total", {"reason": "compare"}, 2),
        Sample(
            "cachecoh_gateway_answer_language_total", {"language": "zh", "source": "detected"}, 6
        ),
        Sample("cachecoh_gateway_answer_language_total", {"language": "zh", "source": "header"}, 1),
    ]
    summary = summarize(samples, now=NOW)
    assert summary["replica"] == {
        "unverified_lookups": {"no_lease": 7, "regressed": 1},
        "behind_partitions": 2,
        "lease": False,
    }
    assert summary["answers"] == {
        "general": {"hit": 5},
        "grounded_bypasses": {"compare": 2},
        "languages": {"zh": 7},
    }
