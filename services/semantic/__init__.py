"""Semantic-cache adapters around the pure core: file loading, the optional vector tier."""
