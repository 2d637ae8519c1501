"""The built-in dashboard's numbers, computed from Prometheus samples (pure).

The page served at ``/dashboard`` shows the same numbers as the Grafana dashboard, read
from the same metrics (the gateway's own, the upstream's, and optional extra sources
such as the coherence worker), so it works with no Prometheus or Grafana running.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    labels: Mapping[str, str]
    value: float


#: Which process a /metrics page belongs to, by a metric name prefix only it exposes.
PROCESS_KINDS = (
    ("cachecoh_coherence_", "worker"),
    ("cachecoh_outbox_", "relay"),
    ("cachecoh_consistency_", "checker"),
    ("cachecoh_router_", "router"),
    ("vllm:", "engine"),
    ("cachecoh_gateway_", "gateway"),
)


@dataclass(frozen=True, slots=True)
class MetricsSource:
    """One scraped ``/metrics`` endpoint; configured as ``name=url`` or a bare URL."""

    name: str | None
    url: str

    @classmethod
    def parse(cls, entry: str) -> MetricsSource:
        name, sep, url = entry.partition("=")
        if sep and "://" not in name:
            return cls(name.strip() or None, url.strip())
        return cls(None, entry.strip())


@dataclass(frozen=True, slots=True)
class Scrape:
    """What one scrape of a source found (``up``: it answered with a metrics page)."""

    source: MetricsSource
    up: bool
    samples: Sequence[Sample]


def process_kind(samples: Iterable[Sample]) -> str | None:
    names = {s.name for s in samples}
    for prefix, kind in PROCESS_KINDS:
        if any(name.startswith(prefix) for name in names):
            return kind
    return None


def process_status(scrapes: Iterable[Scrape]) -> list[dict[str, Any]]:
    """Each scraped process, up or down, named as configured (else by kind, else host)."""
    out = []
    for scrape in scrapes:
        kind = process_kind(scrape.samples)
        name = scrape.source.name or kind or urlsplit(scrape.source.url).netloc
        out.append({"name": name, "kind": kind, "url": scrape.source.url, "up": scrape.up})
    return out


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole > 0 else None


def summarize(samples: Iterable[Sample], now: float) -> dict[str, Any]:
    """Group samples into the dashboard's sections (unknown metrics are ignored).

    ``now`` (Unix seconds) dates the last applied event. A number no scraped process
    reported is ``None`` (unknown), never 0: a worker that is down has no lag to show.
    """
    sums: dict[str, float] = defaultdict(float)
    seen: set[str] = set()
    by: dict[str, dict[tuple[str, ...], float]] = defaultdict(lambda: defaultdict(float))
    buckets: dict[float, float] = defaultdict(float)
    kill_switches: dict[str, bool] = {}

    def add(name: str, labels: Mapping[str, str], value: float, *keys: str) -> None:
        sums[name] += value
        if keys:
            by[name][tuple(labels.get(k, "") for k in keys)] += value

    for s in samples:
        n, lab, v = s.name, s.labels, s.value
        seen.add(n)
        if n == "cachecoh_gateway_cache_lookups_total":
            add(n, lab, v, "layer", "result")
        elif n in (
            "cachecoh_gateway_fill_refused_total",
            "cachecoh_cost_saved_usd_total",
            "cachecoh_cost_lookup_overhead_usd_total",
        ):
            add(n, lab, v, "layer")
        elif n == "request_cache_bypass_reason_total":
            add(n, lab, v, "reason")
        elif n == "cachecoh_gateway_single_flight_waits_total":
            add(n, lab, v, "outcome")
        elif n in (
            "cachecoh_gateway_pii_redactions_total",
            "cachecoh_gateway_general_answers_total",
        ):
            add(n, lab, v, "kind" if n.endswith("pii_redactions_total") else "outcome")
        elif n in (
            "cachecoh_gateway_unverified_lookups_total",
            "cachecoh_gateway_grounded_bypasses_total",
        ):
            add(n, lab, v, "reason")
        elif n == "cachecoh_gateway_answer_language_total":
            add(n, lab, v, "language")
        elif n == "cachecoh_gateway_responses_total":
            add(n, lab, v, "cache", "layer")
        elif n == "cachecoh_coherence_events_total":
            add(n, lab, v, "outcome")
        elif n == "cachecoh_coherence_dlq_events_total":
            add(n, lab, v, "reason")
        elif n == "cachecoh_invalidation_lag_seconds_bucket":
            buckets[float(lab.get("le", "inf"))] += v
        elif n == "cachecoh_gateway_kill_switch_enabled":
            kill_switches[lab.get("layer", "?")] = v >= 1
        elif n in (
            "cachecoh_coherence_consumer_lag_events",
            "cachecoh_coherence_last_applied_timestamp_seconds",
            "cachecoh_coherence_replica_behind_partitions",
            "cachecoh_coherence_replica_lease",
        ):
            sums[n] = max(sums[n], v)
        else:
            add(n, lab, v)

    lookups = by["cachecoh_gateway_cache_lookups_total"]
    layers = {}
    for layer in ("request", "semantic"):
        hit, miss, stale = (lookups.get((layer, r), 0.0) for r in ("hit", "miss", "stale"))
        total = hit + miss + stale
        layers[layer] = {
            "lookups": total,
            "hits": hit,
            "misses": miss,
            "stale": stale,
            "hit_ratio": _ratio(hit, total),
            "stale_ratio": _ratio(stale, total),
        }
    prefix_hits = sums["vllm:prefix_cache_hits_total"]
    prefix_queries = sums["vllm:prefix_cache_queries_total"]
    without = sums["cachecoh_cost_without_cache_usd_total"]
    with_cache = sums["cachecoh_cost_with_cache_usd_total"]
    saved = {k[0]: v for k, v in by["cachecoh_cost_saved_usd_total"].items()}
    gross = sum(saved.values())
    # The gauge is 0 until the worker applies its first event.
    last_applied = sums["cachecoh_coherence_last_applied_timestamp_seconds"] or None
    lag_bounds = sorted(buckets)
    lag_hist = []
    previous = 0.0
    for bound in lag_bounds:
        lag_hist.append({"le": bound, "count": buckets[bound] - previous})
        previous = buckets[bound]
    return {
        "layers": layers,
        "prefix": {
            "hit_tokens": prefix_hits,
            "queried_tokens": prefix_queries,
            "hit_ratio": _ratio(prefix_hits, prefix_queries),
            "evicted_blocks": sums["cachecoh_engine_prefix_cache_evicted_blocks_total"],
        },
        "responses": {
            f"{k[0]} {k[1]}".strip(): v for k, v in by["cachecoh_gateway_responses_total"].items()
        },
        "bypass_reasons": {k[0]: v for k, v in by["request_cache_bypass_reason_total"].items()},
        "fills_refused": {k[0]: v for k, v in by["cachecoh_gateway_fill_refused_total"].items()},
        "protection": {
            "single_flight_waits": {
                k[0]: v for k, v in by["cachecoh_gateway_single_flight_waits_total"].items()
            },
            "token_bucket_rejections": sums["cachecoh_gateway_token_bucket_rejections_total"],
            "breaker_trips": sums["cachecoh_gateway_fill_breaker_trips_total"],
            "store_errors": sums["cachecoh_gateway_store_errors_total"],
        },
        "pii_redactions": {k[0]: v for k, v in by["cachecoh_gateway_pii_redactions_total"].items()},
        "kill_switches": kill_switches,
        "costs": {
            "without_cache_usd": without,
            "with_cache_usd": with_cache,
            "savings_rate": _ratio(without - with_cache, without),
            "saved_usd": saved,
            "share": {layer: _ratio(v, gross) for layer, v in saved.items()},
            "lookup_overhead_usd": {
                k[0]: v for k, v in by["cachecoh_cost_lookup_overhead_usd_total"].items()
            },
        },
        "coherence": {
            "events": {k[0]: v for k, v in by["cachecoh_coherence_events_total"].items()},
            "dead_letters": {k[0]: v for k, v in by["cachecoh_coherence_dlq_events_total"].items()},
            "consumer_lag": sums["cachecoh_coherence_consumer_lag_events"]
            if "cachecoh_coherence_consumer_lag_events" in seen
            else None,
            "worker_reporting": "cachecoh_coherence_last_applied_timestamp_seconds" in seen,
            "last_applied_at": last_applied,
            "last_applied_age_s": max(0.0, now - last_applied) if last_applied else None,
            "invalidation_lag_histogram": lag_hist,
            "invalidation_lag_count": sums["cachecoh_invalidation_lag_seconds_count"],
            "invalidation_lag_sum_s": sums["cachecoh_invalidation_lag_seconds_sum"],
        },
        # Redis as a replica of the event log: while it is unverified (behind, restored,
        # flushed, no lease) gateways serve no cached entry and answer from the model.
        "replica": {
            "unverified_lookups": {
                k[0]: v for k, v in by["cachecoh_gateway_unverified_lookups_total"].items()
            },
            "behind_partitions": sums["cachecoh_coherence_replica_behind_partitions"]
            if "cachecoh_coherence_replica_behind_partitions" in seen
            else None,
            "lease": sums["cachecoh_coherence_replica_lease"] >= 1
            if "cachecoh_coherence_replica_lease" in seen
            else None,
        },
        "answers": {
            "general": {k[0]: v for k, v in by["cachecoh_gateway_general_answers_total"].items()},
            "grounded_bypasses": {
                k[0]: v for k, v in by["cachecoh_gateway_grounded_bypasses_total"].items()
            },
            "languages": {k[0]: v for k, v in by["cachecoh_gateway_answer_language_total"].items()},
        },
        "consistency": {
            "checked_reads": sums["cachecoh_consistency_checked_reads_total"],
            "violations": sums["cachecoh_consistency_violations_total"],
        },
    }
