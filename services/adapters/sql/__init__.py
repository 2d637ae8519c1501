"""SQL adapters (SQLAlchemy 2): schema, engine, audit log, spec store, outbox."""
