"""The demo's own business system: the spec store (SQL, versioned rows) and the outbox
relay that publishes its ProductSpecUpdated events to Kafka."""
