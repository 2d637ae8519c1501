"""Semantic-cache adapters around the pure core: file loading."""
