"""Prometheus metrics of the gateway (names documented in docs/gateway.md).

Label children used on the hit path are bound once here, so counting a hit costs an
attribute read and an increment.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from services.core.redaction import PiiKind

LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
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
class GatewayMetrics:
    registry: CollectorRegistry
    responses: Counter
    lookups: Counter
    bypass_reasons: Counter
    stale_lookups: Counter
    unverified_lookups: Counter
    fills: Counter
    fill_refused: Counter
    fill_skipped: Counter
    single_flight_waits: Counter
    bucket_rejections: Counter
    breaker_trips: Counter
    pii_redactions: Counter
    kill_switch_enabled: Gauge
    store_errors: Counter
    upstream_latency: Histogram
    upstream_errors: Counter
    rejected_requests: Counter
    slow_connections: Counter
    offloaded: Counter
    general_answers: Counter
    grounded_bypasses: Counter
    sampling_overrides: Counter
    answer_languages: Counter
    client_rate_limited: Counter

    @classmethod
    def create(cls, registry: CollectorRegistry | None = None) -> GatewayMetrics:
        reg = registry or CollectorRegistry()
        metrics = cls(
            registry=reg,
            responses=Counter(
                "cachecoh_gateway_responses",
                "Chat completions answered, by X-Cache state and the layer that served.",
                ["cache", "layer"],
                registry=reg,
            ),
            lookups=Counter(
                "cachecoh_gateway_cache_lookups",
                "Answer-cache lookups by layer and result (hit, miss, stale).",
                ["layer", "result"],
                registry=reg,
            ),
            bypass_reasons=Counter(
                "request_cache_bypass_reason",
                "Requests (or one layer of them: layer=request|semantic) that skipped the "
                "cache, by reason (compare, recommend, predict, realtime, personal, ...).",
                ["layer", "reason"],
                registry=reg,
            ),
            stale_lookups=Counter(
                "cachecoh_gateway_stale_lookups",
                "Lookups that found an invalidated entry (served as a miss), by layer.",
                ["layer"],
                registry=reg,
            ),
            unverified_lookups=Counter(
                "cachecoh_gateway_unverified_lookups",
                "Lookups that served no cached entry because Redis may be behind the event "
                "log (no coherence lease: reason no_lease; an older dataset than seen: "
                "regressed); the request fails open to the model. By layer and reason.",
                ["layer", "reason"],
                registry=reg,
            ),
            fills=Counter(
                "cachecoh_gateway_fills",
                "Entries stored by guarded fills, by layer.",
                ["layer"],
                registry=reg,
            ),
            fill_refused=Counter(
                "cachecoh_gateway_fill_refused",
                "Guarded fills refused because a tag generation moved after the snapshot.",
                ["layer"],
                registry=reg,
            ),
            fill_skipped=Counter(
                "cachecoh_gateway_fill_skipped",
                "Answers returned but deliberately not stored, by reason.",
                ["reason"],
                registry=reg,
            ),
            single_flight_waits=Counter(
                "cachecoh_gateway_single_flight_waits",
                "Misses that waited for another call of the same key, by outcome.",
                ["outcome"],
                registry=reg,
            ),
            bucket_rejections=Counter(
                "cachecoh_gateway_token_bucket_rejections",
                "Upstream calls refused by the per-key token bucket (429).",
                registry=reg,
            ),
            breaker_trips=Counter(
                "cachecoh_gateway_fill_breaker_trips",
                "Misses answered with the fallback (503) because the key's breaker was open.",
                registry=reg,
            ),
            pii_redactions=Counter(
                "cachecoh_gateway_pii_redactions",
                "Personal-data findings redacted from requests before keying, by kind.",
                ["kind"],
                registry=reg,
            ),
            kill_switch_enabled=Gauge(
                "cachecoh_gateway_kill_switch_enabled",
                "1 when the layer is enabled, 0 when its kill switch is off.",
                ["layer"],
                registry=reg,
            ),
            store_errors=Counter(
                "cachecoh_gateway_store_errors",
                "Redis calls that failed; the gateway failed open, by operation.",
                ["operation"],
                registry=reg,
            ),
            upstream_latency=Histogram(
                "cachecoh_gateway_upstream_latency_seconds",
                "Upstream chat-completion time (to the last byte), by outcome.",
                ["outcome"],
                buckets=LATENCY_BUCKETS,
                registry=reg,
            ),
            upstream_errors=Counter(
                "cachecoh_gateway_upstream_errors",
                "Upstream calls that failed, by kind (timeout, unavailable, rejected).",
                ["kind"],
                registry=reg,
            ),
            rejected_requests=Counter(
                "cachecoh_gateway_rejected_requests",
                "Requests refused before parsing: body_too_large (413), too_deep (400).",
                ["reason"],
                registry=reg,
            ),
            slow_connections=Counter(
                "cachecoh_gateway_slow_connections_closed",
                "Connections closed for not sending their headers or body in time, by stage.",
                ["stage"],
                registry=reg,
            ),
            offloaded=Counter(
                "cachecoh_gateway_offloaded_steps",
                "CPU-heavy steps on long texts run in a worker thread, off the event loop.",
                ["step"],
                registry=reg,
            ),
            general_answers=Counter(
                "cachecoh_gateway_general_answers",
                "Requests without a fingerprint (general questions, conversations) through "
                "the request layer, by outcome (hit, miss, stored, sampled).",
                ["outcome"],
                registry=reg,
            ),
            grounded_bypasses=Counter(
                "cachecoh_gateway_grounded_bypasses",
                "Bypassed product questions sent upstream with the named products' facts "
                "(not stored), by bypass reason.",
                ["reason"],
                registry=reg,
            ),
            sampling_overrides=Counter(
                "cachecoh_gateway_sampling_overrides",
                "Grounded misses generated with the gateway's sampling instead of the "
                "client's (client_default: no temperature sent; client_value: one sent).",
                ["client"],
                registry=reg,
            ),
            answer_languages=Counter(
                "cachecoh_gateway_answer_language",
                "Canonical questions rendered, by answer language and how it was chosen "
                "(detected, header).",
                ["language", "source"],
                registry=reg,
            ),
            client_rate_limited=Counter(
                "cachecoh_gateway_client_override_rejections",
                "no-cache / X-Cache-TTL requests refused (429) by the per-API-key bucket.",
                ["control"],
                registry=reg,
            ),
        )
        for reason in ("body_too_large", "too_deep"):
            metrics.rejected_requests.labels(reason)
        for stage in ("headers", "body"):
            metrics.slow_connections.labels(stage)
        for outcome in ("hit", "miss", "stored", "sampled"):
            metrics.general_answers.labels(outcome)
        for kind in PiiKind:
            metrics.pii_redactions.labels(kind.value)
        for layer in ("request", "semantic"):
            metrics.fill_refused.labels(layer)
            metrics.stale_lookups.labels(layer)
            for reason in ("no_lease", "regressed"):
                metrics.unverified_lookups.labels(layer, reason)
        return metrics
