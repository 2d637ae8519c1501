"""cachecoh: event-driven cache coherence for LLM answer caches.

Layout (see docs/architecture.md):

- ``services.core``      pure domain: events, tags, mappings, keys, entries. No I/O imports.
- ``services.adapters``  edges: Redis tag store, SQL (audit, spec store, outbox), Kafka.
- ``services.<service>`` one subpackage per process (coherence, gateway, inference, ...),
  each with its own pydantic-settings ``Settings`` and a ``bootstrap`` composition root.
- ``services.cli``       the ``cachecoh`` command.
"""

__version__ = "0.1.0"
