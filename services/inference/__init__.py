"""The inference tier: the offline engine, the prefix- and KV-cache-aware router and the
metrics bridge. In production the engine is vLLM; see docs/inference.md."""
