"""The inference tier: the offline engine, the prefix-aware router, the template matcher
and the metrics bridge. In production the engine is vLLM; see docs/inference.md."""
