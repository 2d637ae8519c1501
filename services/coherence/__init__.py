"""The coherence service: a faust-streaming worker that turns ProductSpecUpdated events
into tag-generation bumps in Redis (see docs/coherence.md)."""
