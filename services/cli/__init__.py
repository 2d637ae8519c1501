"""The ``cachecoh`` command: one Typer app, one module per command group.

Each group module keeps its commands thin: parse options, call into a service's
composition root, render the result. Heavy imports happen inside the commands so
``cachecoh --help`` stays fast.
"""

from __future__ import annotations

import typer

from services.cli import (
    bench,
    catalog,
    check,
    db,
    demo,
    dlq,
    eval,
    publish,
    semantic,
    serve,
    specs,
    worker,
)

app = typer.Typer(
    name="cachecoh",
    help="Event-driven cache coherence for LLM answer caches.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(publish.app, name="publish")
app.add_typer(worker.app, name="worker")
app.add_typer(serve.app, name="serve")
app.add_typer(bench.app, name="bench")
app.add_typer(eval.app, name="eval")
app.add_typer(check.app, name="check")
app.add_typer(db.app, name="db")
app.add_typer(specs.app, name="specs")
app.add_typer(dlq.app, name="dlq")
app.add_typer(catalog.app, name="catalog")
app.add_typer(semantic.app, name="semantic")
app.command(name="demo")(demo.demo)


@app.command(name="config")
def config() -> None:
    """Print the configuration reference (every CACHECOH_* variable) as Markdown."""
    from services.config_reference import render_markdown

    typer.echo(render_markdown())


@app.command(name="metrics")
def metrics() -> None:
    """Print the metrics reference (every metric of every process) as Markdown."""
    from services.metrics_reference import render_markdown

    typer.echo(render_markdown())


def main() -> None:
    app()
