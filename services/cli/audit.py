"""`cachecoh audit ...`: what the coherence worker did with each event (the SQL audit)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from services.adapters.sql.audit_reader import AuditEntry, AuditReader

app = typer.Typer(
    help="Read the coherence audit: one row per consumed event (no payload values).",
    no_args_is_help=True,
)

OUTCOME_STYLES = {"applied": "green", "duplicate": "cyan", "dead_lettered": "red"}


def _reader() -> AuditReader:
    from services.adapters.sql.audit_reader import AuditReader
    from services.adapters.sql.engine import make_engine
    from services.settings import CommonSettings

    return AuditReader(make_engine(CommonSettings().database_url.get_secret_value()))


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "–"
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _table(entries: list[AuditEntry], *, header: bool) -> Table:
    from rich.table import Table

    table = Table(show_header=header, box=None, pad_edge=False, expand=False)
    table.add_column("applied (UTC)", no_wrap=True)
    table.add_column("outcome", no_wrap=True)
    table.add_column("product", no_wrap=True)
    table.add_column("v", justify="right")
    table.add_column("fields", overflow="fold")
    table.add_column("tags", justify="right")
    table.add_column("lag ms", justify="right")
    table.add_column("at", no_wrap=True)
    table.add_column("event", no_wrap=True)
    for entry in entries:
        style = OUTCOME_STYLES.get(entry.outcome, "")
        fields = ", ".join(entry.changed_fields) or (entry.reason or "")
        table.add_row(
            _when(entry.applied_at),
            f"[{style}]{entry.outcome}[/{style}]" if style else entry.outcome,
            entry.product_id or "–",
            "" if entry.spec_version is None else str(entry.spec_version),
            fields,
            str(len(entry.tags)),
            "" if entry.lag_ms is None else f"{entry.lag_ms:.1f}",
            f"{entry.partition}@{entry.offset}",
            entry.event_id,
        )
    return table


def _reason(entry: AuditEntry) -> str:
    if entry.reason is None:
        return "–"
    if entry.outcome == "dead_lettered":
        return f"{entry.reason} [dim](detail withheld: it may quote the payload)[/dim]"
    return entry.reason


#: Below this many columns the table would cut event ids; rows are printed as two lines.
WIDE_TABLE = 120


def _narrow_lines(entries: list[AuditEntry]) -> list[str]:
    out = []
    for entry in entries:
        style = OUTCOME_STYLES.get(entry.outcome, "white")
        version = "" if entry.spec_version is None else f" v{entry.spec_version}"
        lag = "" if entry.lag_ms is None else f"  {entry.lag_ms:.1f} ms"
        fields = ", ".join(entry.changed_fields) or (entry.reason or "")
        out.append(
            f"{_when(entry.applied_at)[11:]}Z [{style}]{entry.outcome:<13}[/{style}]  "
            f"{entry.product_id or '–'}{version}{lag}  {fields}  "
            f"[dim]({len(entry.tags)} tags, {entry.partition}@{entry.offset})[/dim]"
        )
        out.append(f"{'':14}[dim]event[/dim] {entry.event_id}")
    return out


def _fail(console: Console, exc: Exception) -> typer.Exit:
    console.print(f"[red]error:[/red] {exc}", soft_wrap=True)
    return typer.Exit(2)


@app.command("tail")
def tail(
    lines: Annotated[int, typer.Option("-n", "--lines", min=1, help="Show the last N rows.")] = 20,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing new rows until Ctrl-C.")
    ] = False,
    interval: Annotated[
        float, typer.Option(min=0.05, help="Seconds between polls with --follow.")
    ] = 0.5,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object per row.")] = False,
) -> None:
    """The newest audit rows, oldest first: outcome, product, spec version, changed fields
    (or a dead letter's reason code), number of tags bumped, lag, partition@offset, event id."""
    import time

    from rich.console import Console

    from services.core.errors import DatabaseUnavailable

    console = Console()

    def emit(entries: list[AuditEntry], header: bool) -> None:
        if json_output:
            for entry in entries:
                typer.echo(json.dumps(entry.to_dict(), ensure_ascii=False))
        elif entries and console.width >= WIDE_TABLE:
            console.print(_table(entries, header=header))
        else:
            for line in _narrow_lines(entries):
                console.print(line, soft_wrap=True, highlight=False)

    reader = _reader()
    try:
        entries = reader.latest(lines)
        if not entries and not follow:
            console.print("the audit is empty: no event consumed yet")
        emit(entries, header=True)
        last = entries[-1].row_id if entries else 0
        header = not entries
        while follow:
            time.sleep(interval)
            new = reader.after(last)
            if new:
                emit(new, header=header)
                header = False
                last = new[-1].row_id
    except DatabaseUnavailable as exc:
        raise _fail(console, exc) from exc
    except KeyboardInterrupt:
        return


@app.command("show")
def show(
    event_id: Annotated[str, typer.Argument(help="The CloudEvent's id (or dlq:TOPIC:P:OFFSET).")],
    source: Annotated[
        str | None, typer.Option(help="The CloudEvent's source (ids are unique per source).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """Everything the audit holds about one event: outcome, product and spec version,
    changed fields, every tag bumped, lag, where it was read and which worker applied it."""
    from rich.console import Console
    from rich.table import Table

    from services.core.errors import DatabaseUnavailable

    console = Console()
    reader = _reader()
    try:
        entries = reader.event(event_id, source)
    except DatabaseUnavailable as exc:
        raise _fail(console, exc) from exc
    if not entries:
        which = f"event {event_id!r}" + (f" from source {source!r}" if source else "")
        console.print(f"no audit row for {which}", soft_wrap=True)
        raise typer.Exit(1)
    if json_output:
        typer.echo(json.dumps([e.to_dict() for e in entries], ensure_ascii=False, indent=2))
        return
    for entry in entries:
        table = Table(show_header=False, box=None, pad_edge=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        style = OUTCOME_STYLES.get(entry.outcome, "")
        rows = [
            ("event", entry.event_id),
            ("source", entry.source or "not recorded (written before sources were)"),
            ("outcome", f"[{style}]{entry.outcome}[/{style}]" if style else entry.outcome),
            ("product", entry.product_id or "–"),
            ("spec version", "–" if entry.spec_version is None else str(entry.spec_version)),
            ("tenant", entry.tenant or "–"),
            ("changed fields", "\n".join(entry.changed_fields) or "–"),
            (f"tags bumped ({len(entry.tags)})", "\n".join(entry.tags) or "–"),
            ("reason", _reason(entry)),
            ("read from", f"{entry.topic}[{entry.partition}]@{entry.offset}"),
            ("event time (UTC)", _when(entry.event_time)),
            ("applied (UTC)", _when(entry.applied_at)),
            ("lag ms", "–" if entry.lag_ms is None else f"{entry.lag_ms:.1f}"),
            ("worker", entry.worker),
        ]
        for name, value in rows:
            table.add_row(name, value)
        console.print(table)
