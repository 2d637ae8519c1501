"""Adapters at the edge: Redis, SQL, Kafka, files. Lower-layer errors are translated here."""
