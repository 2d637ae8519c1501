"""Prometheus metrics of the coherence worker (names documented in docs/metrics.md)."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

LAG_BUCKETS = (
    0.0005,
    0.001,
    0.002,
    0.003,
    0.005,
    0.0075,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)


@dataclass(frozen=True)
class CoherenceMetrics:
    registry: CollectorRegistry
    events: Counter
    invalidation_lag: Histogram
    bump_duration: Histogram
    tags_bumped: Counter
    dead_letters: Counter
    retries: Counter
    fallback_invalidations: Counter
    consumer_lag: Gauge
    audit_pending: Gauge
    assigned_partitions: Gauge
    audit_rows_dropped: Counter
    fetch_wait_ms: Gauge
    broker_delay: Histogram
    processing: Histogram
    last_applied: Gauge
    replica_checks: Counter
    replica_reapplied: Counter
    replica_behind: Gauge
    replica_lease: Gauge

    @classmethod
    def create(cls, registry: CollectorRegistry | None = None) -> CoherenceMetrics:
        reg = registry or CollectorRegistry()
        return cls(
            registry=reg,
            events=Counter(
                "cachecoh_coherence_events",
                "Consumed spec-update records by outcome (applied, duplicate, dead_lettered).",
                ["outcome"],
                registry=reg,
            ),
            invalidation_lag=Histogram(
                "cachecoh_invalidation_lag_seconds",
                "Event time (publish) to generation bump acknowledged by Redis.",
                buckets=LAG_BUCKETS,
                registry=reg,
            ),
            bump_duration=Histogram(
                "cachecoh_coherence_bump_duration_seconds",
                "Time of the Redis bump calls for one event.",
                buckets=LAG_BUCKETS,
                registry=reg,
            ),
            tags_bumped=Counter(
                "cachecoh_coherence_tags_bumped", "Tag generations incremented.", registry=reg
            ),
            dead_letters=Counter(
                "cachecoh_coherence_dlq_events",
                "Records sent to the dead-letter topic, by reason.",
                ["reason"],
                registry=reg,
            ),
            retries=Counter(
                "cachecoh_coherence_retries",
                "Retries after a transient dependency error, by dependency.",
                ["dependency"],
                registry=reg,
            ),
            fallback_invalidations=Counter(
                "cachecoh_coherence_fallback_invalidations",
                "Events applied as whole-product invalidations after an internal error.",
                registry=reg,
            ),
            consumer_lag=Gauge(
                "cachecoh_coherence_consumer_lag_events",
                "Records in the partition not yet processed (high-water mark minus position).",
                ["partition"],
                registry=reg,
            ),
            audit_pending=Gauge(
                "cachecoh_coherence_audit_pending",
                "Applied events waiting for their audit row (their offsets are not acked yet).",
                registry=reg,
            ),
            assigned_partitions=Gauge(
                "cachecoh_coherence_assigned_partitions",
                "Partitions of the spec-update topic assigned to this worker.",
                registry=reg,
            ),
            audit_rows_dropped=Counter(
                "cachecoh_coherence_audit_rows_dropped",
                "Audit rows the database refused even sanitized (the events were applied).",
                registry=reg,
            ),
            fetch_wait_ms=Gauge(
                "cachecoh_coherence_fetch_wait_ms",
                "Current consumer long-poll bound (raised when a partition starves).",
                registry=reg,
            ),
            broker_delay=Histogram(
                "cachecoh_coherence_broker_delay_seconds",
                "Record timestamp (producer send) to the worker receiving it: the part of the "
                "invalidation lag spent in the producer, the broker and the fetch.",
                buckets=LAG_BUCKETS,
                registry=reg,
            ),
            processing=Histogram(
                "cachecoh_coherence_processing_seconds",
                "Worker's own part of the lag: record received to its bump acknowledged.",
                buckets=LAG_BUCKETS,
                registry=reg,
            ),
            last_applied=Gauge(
                "cachecoh_coherence_last_applied_timestamp_seconds",
                "Unix time of the last applied event.",
                registry=reg,
            ),
            replica_checks=Counter(
                "cachecoh_coherence_replica_checks",
                "Checks of Redis's replica record against the group's committed offsets, by "
                "result (ok, behind, adopted, unrecoverable, error).",
                ["result"],
                registry=reg,
            ),
            replica_reapplied=Counter(
                "cachecoh_coherence_replica_reapplied_records",
                "Records re-applied because Redis had lost them (restore, failover, lost writes).",
                registry=reg,
            ),
            replica_behind=Gauge(
                "cachecoh_coherence_replica_behind_partitions",
                "Partitions on which Redis is behind the log (gateways serve no cached entry "
                "while this is above 0).",
                registry=reg,
            ),
            replica_lease=Gauge(
                "cachecoh_coherence_replica_lease",
                "1 when this worker's last check found Redis coherent and set the lease.",
                registry=reg,
            ),
        )


def observe_many(histogram: Histogram, value: float, count: int) -> None:
    """``count`` observations of one ``value`` (every record of a batch shares the
    batch's processing time): one bucket and one sum update instead of ``count``
    ``observe`` calls, each taking the histogram's locks. The same series as observing
    ``count`` times (``test_observe_many_equals_repeated_observe``)."""
    if count <= 0:
        return
    if count == 1:
        histogram.observe(value)
        return
    # prometheus_client keeps per-bucket (not cumulative) counts and the sum; observe()
    # increments the first bucket whose bound holds the value. Checked against observe()
    # by the test above, so a change of prometheus_client's internals fails there.
    histogram._raise_if_not_observable()  # type: ignore[no-untyped-call]
    histogram._sum.inc(value * count)
    for i, bound in enumerate(histogram._upper_bounds):
        if value <= bound:
            histogram._buckets[i].inc(count)
            break
