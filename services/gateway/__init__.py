"""The OpenAI-compatible caching gateway (request and semantic layers, kept coherent)."""
