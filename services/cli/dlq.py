"""`cachecoh dlq ...`: inspect and replay dead-lettered events."""

from __future__ import annotations

import json
from typing import Annotated

import typer

app = typer.Typer(help="Inspect and replay the dead-letter topic.", no_args_is_help=True)

#: Without a broker, fail after this long with one line (kafka-python waits 30 s).
CONNECT_TIMEOUT_S = 5.0
ConnectTimeout = Annotated[
    float,
    typer.Option(min=0.1, help="Seconds to wait for a broker before giving up."),
]


@app.command("list")
def list_letters(
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many.")] = 50,
    connect_timeout: ConnectTimeout = CONNECT_TIMEOUT_S,
) -> None:
    """Dead letters with their reason, JSON path, key digest and source offset (never their
    payload or key)."""
    from services.adapters.dead_letter_topic import read_dead_letters
    from services.settings import CommonSettings

    settings = CommonSettings()
    counts: dict[str, int] = {}
    letters = read_dead_letters(
        settings.kafka_bootstrap, settings.dlq_topic, connect_timeout_s=connect_timeout
    )
    for n, letter in enumerate(letters):
        counts[letter.reason] = counts.get(letter.reason, 0) + 1
        if n < limit:
            typer.echo(
                json.dumps(
                    {
                        "partition": letter.partition,
                        "offset": letter.offset,
                        "reason": letter.reason,
                        "json_path": letter.headers.get("json_path"),
                        "key_digest": letter.headers.get("key_digest"),
                        "source": f"{letter.headers.get('source_topic')}"
                        f"[{letter.headers.get('source_partition')}]"
                        f"@{letter.headers.get('source_offset')}",
                        "bytes": len(letter.value),
                    }
                )
            )
    typer.echo(json.dumps({"by_reason": counts}))


@app.command("replay")
def replay_letters(
    reason: Annotated[str | None, typer.Option(help="Only letters with this reason.")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Validate only, publish nothing.")
    ] = False,
    connect_timeout: ConnectTimeout = CONNECT_TIMEOUT_S,
) -> None:
    """Republish dead letters that now parse against the event schema (JSON, schema, key).

    Mappings and the spec store are not consulted: the worker checks those again, and
    may dead-letter a replayed event again (e.g. a product it still does not know).
    """
    from services.adapters.contract_files import EVENT_SCHEMA, validator_for
    from services.adapters.dead_letter_topic import read_dead_letters, replay
    from services.adapters.kafka_publisher import SpecUpdatePublisher
    from services.settings import CommonSettings

    settings = CommonSettings()
    letters = read_dead_letters(
        settings.kafka_bootstrap, settings.dlq_topic, connect_timeout_s=connect_timeout
    )
    validator = validator_for(EVENT_SCHEMA, settings.schemas_dir)
    if dry_run:
        report = replay(letters, validator, None, reason=reason)
    else:
        with SpecUpdatePublisher(settings.kafka_bootstrap, topic=settings.topic) as publisher:
            report = replay(letters, validator, publisher, reason=reason)
    typer.echo(json.dumps(report.to_dict()))
