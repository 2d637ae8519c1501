"""Operator tooling that is not a long-running service (dead-letter inspection and replay)."""
