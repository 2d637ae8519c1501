"""``cachecoh demo``: the whole system on one machine with no Docker (embedded defaults)."""
