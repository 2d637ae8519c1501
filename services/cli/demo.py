"""`cachecoh demo`: the embedded end-to-end demo."""

from __future__ import annotations


def demo() -> None:
    """Run the embedded demo (broker, worker, caches, events)."""
    raise NotImplementedError
