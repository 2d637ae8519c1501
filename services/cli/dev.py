"""`cachecoh dev ...`: the embedded stack for local development."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from services.harness.stack import Stack

app = typer.Typer(help="Local development: the whole system on this machine.", no_args_is_help=True)

#: What the session's first request asks (a catalog product, so the answer is cacheable).
FIRST_QUESTION = "iPhone 15 看视频能用多久"
READY_LINE = "cachecoh dev stack is up; Ctrl-C stops it"


def _next_steps(stack: Stack) -> list[str]:
    tenant, api_key = next(iter(stack.api_keys.items()))
    body = json.dumps(
        {
            "model": "cachecoh-offline",
            "messages": [{"role": "user", "content": FIRST_QUESTION}],
            "temperature": 0,
            "max_tokens": 64,
        },
        ensure_ascii=False,
    )
    curl = " ".join(
        [
            "curl -si",
            shlex.quote(f"{stack.gateway_url}/v1/chat/completions"),
            "-H",
            shlex.quote(f"Authorization: Bearer {api_key}"),
            "-H 'Content-Type: application/json'",
            "-d",
            shlex.quote(body),
        ]
    )
    change = shlex.quote('battery_life.video_playback={"value":22,"unit":"h"}')
    return [
        f"# ask as tenant {tenant} (twice: the second answer says X-Cache: HIT)",
        curl,
        "# point the CLI at this stack (in another shell)",
        f"export CACHECOH_DATABASE_URL={shlex.quote(stack.database_url)}"
        f" CACHECOH_KAFKA_BOOTSTRAP={stack.bootstrap} CACHECOH_TOPIC={stack.topic}",
        "# change a spec through the outbox (the relay publishes it, the worker invalidates)",
        f"cachecoh specs update --product iphone_15 --set {change}",
        "# or publish an event directly, as a business system would",
        "cachecoh publish spec-update --product iphone_15 --field battery_life.video_playback",
        "# what the worker did with each event",
        "cachecoh audit tail --follow",
    ]


def _print_session(console: Console, stack: Stack) -> None:
    rows: list[tuple[str, str]] = [
        ("gateway", stack.gateway_url),
        ("dashboard", f"{stack.gateway_url}/dashboard"),
        ("engine", stack.engine_url),
        *((f"metrics {name}", url) for name, url in stack.metrics_urls().items()),
        ("broker", stack.bootstrap),
        ("redis", f"{stack.redis_url} (keys under {stack.redis_prefix}:*)"),
        ("database", stack.database_url),
        *((f"api key {tenant}", key) for tenant, key in stack.api_keys.items()),
        ("admin token", stack.admin_token),
        ("logs", str(stack.work_dir)),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        # soft_wrap: a URL or key split over two lines cannot be copied.
        console.print(f"[bold]{name.ljust(width)}[/bold]  {value}", soft_wrap=True)
    console.print()
    console.print("[bold]next steps[/bold]")
    for line in _next_steps(stack):
        console.print(line, style="dim" if line.startswith("#") else None, soft_wrap=True)
    console.print()
    console.print(f"[green]{READY_LINE}[/green]", soft_wrap=True)


@app.command("up")
def up(
    engines: Annotated[
        int, typer.Option(min=1, max=8, help="Offline engine replicas (more than 1: a router).")
    ] = 1,
    private_redis: Annotated[
        bool,
        typer.Option(
            "--private-redis", help="Start a redis-server of its own even if 6379 answers."
        ),
    ] = False,
    work_dir: Annotated[
        Path | None, typer.Option(help="Logs and SQLite file here (default: a temp dir, kept).")
    ] = None,
) -> None:
    """Start the whole system (broker, Redis, SQLite, engine, worker, outbox relay,
    gateway) on loopback ports, print its URLs, keys and next steps, and keep it up until
    Ctrl-C or SIGTERM; then stop every process it started."""
    import logging
    import signal
    import threading
    from types import FrameType

    from rich.console import Console

    from services.harness.stack import StackOptions, StackStartError, start_stack

    logging.basicConfig(level=logging.WARNING)
    console = Console()
    stop = threading.Event()

    def interrupt_start(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # start_stack stops what it had started

    signal.signal(signal.SIGTERM, interrupt_start)
    options = StackOptions(
        name="dev",
        work_dir=work_dir,
        keep_work_dir=True,
        engines=engines,
        redis="private" if private_redis else "local_or_private",
        log_level="INFO",
    )
    try:
        with console.status("starting the embedded stack") as status:
            stack = start_stack(
                options, lambda step, message: status.update(f"[b]{step}[/b] {message}")
            )
    except KeyboardInterrupt:
        console.print("interrupted during start-up; everything started was stopped")
        raise typer.Exit(130) from None
    except StackStartError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(1) from exc

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    exit_code = 0
    try:
        _print_session(console, stack)
        while not stop.wait(1.0):
            gone = [name for name, alive in _liveness(stack).items() if not alive]
            if gone:
                console.print(f"[red]stopped by itself:[/red] {', '.join(gone)} (see the logs)")
                exit_code = 1
                break
    finally:
        with console.status("stopping every process"):
            stack.close()
    console.print(f"stopped; logs kept in {stack.work_dir}", soft_wrap=True)
    raise typer.Exit(exit_code)


def _liveness(stack: Stack) -> dict[str, bool]:
    alive = {m.name: m.alive for m in (*stack.engines, stack.router, stack.gateway) if m}
    if stack.worker is not None:
        alive["worker"] = stack.worker.running
    if stack.broker is not None:
        alive["broker"] = stack.broker.running
    if stack.redis_server is not None:
        alive["redis"] = stack.redis_server.running
    return alive
