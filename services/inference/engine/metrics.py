"""The engine's Prometheus metrics, under vLLM's (v1) names and labels, so dashboards and
the metrics bridge read the offline engine and a vLLM replica alike."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

#: vLLM v1's TTFT buckets (seconds, ``vllm/v1/metrics/loggers.py``).
TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class EngineMetrics:
    """One registry per engine instance (several engines may share a test process)."""

    def __init__(self, model_name: str, *, block_size: int, num_blocks: int) -> None:
        self.registry = CollectorRegistry()
        labels = {"model_name": model_name, "engine": "0"}
        names = list(labels)

        def counter(name: str, doc: str) -> Counter:
            return Counter(name, doc, names, registry=self.registry)

        self.prefix_cache_queries = counter(
            "vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.",
        ).labels(**labels)
        self.prefix_cache_hits = counter(
            "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."
        ).labels(**labels)
        self.prompt_tokens = counter(
            "vllm:prompt_tokens", "Number of prefill tokens processed."
        ).labels(**labels)
        # vLLM has no eviction counter under this name; ours says so by its prefix.
        self.prefix_cache_evicted_blocks = counter(
            "cachecoh_engine_prefix_cache_evicted_blocks",
            "Prefix-cache blocks evicted (LRU) to make room, from the engine's accounting model.",
        ).labels(**labels)
        self.generation_tokens = counter(
            "vllm:generation_tokens", "Number of generation tokens processed."
        ).labels(**labels)
        self._request_success = Counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            [*names, "finished_reason"],
            registry=self.registry,
        )
        self._labels = labels
        self.requests_running = Gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            names,
            registry=self.registry,
        ).labels(**labels)
        self.requests_waiting = Gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            names,
            registry=self.registry,
        ).labels(**labels)
        self.kv_cache_usage = Gauge(
            "vllm:kv_cache_usage_perc",
            "KV-cache usage. 1 means 100 percent usage.",
            names,
            registry=self.registry,
        ).labels(**labels)
        self.time_to_first_token = Histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            names,
            buckets=TTFT_BUCKETS,
            registry=self.registry,
        ).labels(**labels)
        self.e2e_latency = Histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            names,
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        ).labels(**labels)
        cache_config = Gauge(
            "vllm:cache_config_info",
            "Information of the LLMEngine CacheConfig.",
            ["block_size", "num_gpu_blocks", "enable_prefix_caching", "engine_kind"],
            registry=self.registry,
        )
        cache_config.labels(
            block_size=str(block_size),
            num_gpu_blocks=str(num_blocks),
            enable_prefix_caching="True",
            engine_kind="cachecoh-offline-stand-in",
        ).set(1)

    def request_finished(self, finished_reason: str) -> None:
        self._request_success.labels(**self._labels, finished_reason=finished_reason).inc()
