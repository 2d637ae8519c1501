"""`cachecoh worker ...`: long-running processes of the coherence side."""

from __future__ import annotations

import typer

app = typer.Typer(help="Run a worker (coherence, outbox relay).", no_args_is_help=True)


@app.command("coherence")
def coherence() -> None:
    """Consume ProductSpecUpdated events and invalidate affected answers (faust worker)."""
    from services.coherence.bootstrap import build_worker
    from services.coherence.settings import CoherenceSettings

    build_worker(CoherenceSettings()).run()


@app.command("relay")
def relay(once: bool = typer.Option(False, "--once", help="One pass, then exit.")) -> None:
    """Publish the spec store's outbox to Kafka (at least once, in order)."""
    import logging
    import signal
    import threading

    from services.adapters.kafka_publisher import SpecUpdatePublisher
    from services.adapters.sql.engine import make_engine
    from services.adapters.sql.spec_store import SpecStore
    from services.business.relay import OutboxRelay
    from services.business.settings import BusinessSettings

    settings = BusinessSettings()
    logging.basicConfig(level=settings.log_level.upper())
    store = SpecStore(make_engine(settings.database_url.get_secret_value()), topic=settings.topic)
    with SpecUpdatePublisher(
        settings.kafka_bootstrap, topic=settings.topic, timeout_s=settings.publish_timeout_s
    ) as publisher:
        outbox = OutboxRelay(store, publisher, batch=settings.relay_batch)
        if settings.relay_metrics_port:
            from prometheus_client import start_http_server

            start_http_server(settings.relay_metrics_port, registry=outbox.metrics.registry)
        if once:
            typer.echo(f"published {outbox.run_once()} outbox rows")
            return
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        outbox.run_forever(settings.relay_poll_s, stop)
