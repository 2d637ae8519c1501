"""`cachecoh demo`: the embedded end-to-end demo."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def demo(
    seconds: Annotated[float, typer.Option(min=10, help="How long the replay runs.")] = 40.0,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run the whole system embedded (no Docker): broker, Redis, SQLite, engine, worker,
    gateway; replay questions, change a product, show every cache layer and the
    invalidation. Leaves nothing running."""
    import asyncio
    import logging

    from rich.console import Console
    from rich.table import Table

    from services.harness.demo.scenario import run_scenario, summary
    from services.harness.stack import StackOptions, start_stack

    logging.basicConfig(level=logging.WARNING)
    console = Console(stderr=json_output)
    with console.status("starting the embedded stack") as status:
        stack = start_stack(
            StackOptions(name="demo", keep_work_dir=True, engine_settings={"log_level": "warning"}),
            lambda step, message: status.update(f"[b]{step}[/b] {message}"),
        )
    try:
        console.log(
            f"stack up: gateway {stack.gateway_url} (live page {stack.gateway_url}/dashboard), "
            f"logs in {stack.work_dir}"
        )
        tally = asyncio.run(run_scenario(stack, seconds, console))
    finally:
        with console.status("stopping everything"):
            stack.close()
    result = summary(tally, stack)
    if json_output:
        typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    table = Table(title="cachecoh demo: summary")
    table.add_column("what")
    table.add_column("value", overflow="fold")
    for key, value in result.items():
        table.add_row(
            key, json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
        )
    console.print(table)
