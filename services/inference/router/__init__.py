"""The prefix-aware router: an OpenAI-compatible proxy over N inference replicas
(``cachecoh serve router``). Policies and their decisions live in ``services.core.routing``.
"""
