"""The prefix- and KV-cache-aware router: an OpenAI-compatible proxy over N inference
replicas (``cachecoh serve router``) that follows their KV cache events. Policies and their
decisions live in ``services.core.routing``, the block index in ``services.core.kv_index``.
"""
