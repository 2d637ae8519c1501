"""`cachecoh publish ...`: publish events as a business system would."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

app = typer.Typer(help="Publish ProductSpecUpdated events to Kafka.", no_args_is_help=True)


@app.command("spec-update")
def spec_update(
    product: Annotated[str, typer.Option("--product", help="Product id (the Kafka key).")],
    field: Annotated[list[str], typer.Option("--field", help="Changed field path (repeatable).")],
    spec_version: Annotated[
        int | None,
        typer.Option(help="The product's new spec version (default: Unix time in ms)."),
    ] = None,
    tenant: Annotated[str | None, typer.Option(help="Tenant whose catalog changed.")] = None,
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap servers.")] = None,
    topic: Annotated[str | None, typer.Option(help="Topic (default from settings).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the broker.")] = 10.0,
) -> None:
    """Publish one ProductSpecUpdated event and print where it landed."""
    from services.adapters.contract_files import EVENT_SCHEMA, validator_for
    from services.adapters.kafka_publisher import SpecUpdatePublisher
    from services.business.settings import BusinessSettings
    from services.core.errors import InvalidEvent, PublishError
    from services.core.events import new_event, parse_event

    settings = BusinessSettings()
    event = new_event(
        product,
        field,
        spec_version if spec_version is not None else int(time.time() * 1000),
        source=settings.event_source,
        tenant=tenant,
    )
    try:
        # Refuse locally what the worker would dead-letter.
        parse_event(
            event.to_bytes(), event.kafka_key, validator_for(EVENT_SCHEMA, settings.schemas_dir)
        )
        with SpecUpdatePublisher(
            bootstrap or settings.kafka_bootstrap, topic=topic or settings.topic, timeout_s=timeout
        ) as publisher:
            where = publisher.publish(event)
    except InvalidEvent as exc:
        typer.echo(f"error: invalid event: {exc}", err=True)
        sys.exit(2)
    except PublishError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    typer.echo(f"published {event.event_id} to {where.topic}[{where.partition}]@{where.offset}")
