"""The ``cachecoh`` command: one Typer app, one module per command group.

Each group module keeps its commands thin: parse options, call into a service's
composition root, render the result. Heavy imports happen inside the commands so
``cachecoh --help`` stays fast.

Errors: a ``CachecohError`` (or a settings class's validation error) that reaches the top
is printed as one line, ``cachecoh: error: <what and where> (<fix>)``, exit status 2;
``cachecoh --traceback ...`` shows the traceback instead. Anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from services.cli import (
    audit,
    bench,
    catalog,
    check,
    db,
    demo,
    dev,
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
app.add_typer(dev.app, name="dev")
app.add_typer(audit.app, name="audit")
app.add_typer(catalog.app, name="catalog")
app.add_typer(semantic.app, name="semantic")
app.command(name="demo")(demo.demo)

#: Exit status of a command that stopped on a CachecohError (usage errors are 2 as well).
ERROR_EXIT = 2
_options = {"traceback": False}


@app.callback()
def _global_options(
    traceback: Annotated[
        bool, typer.Option("--traceback", help="Show the traceback of an error.")
    ] = False,
) -> None:
    _options["traceback"] = traceback


@app.command(name="contracts")
def contracts() -> None:
    """Load and validate every contract file from the configured directories (schemas,
    mappings, admission policy, lexicon, prices) and print what was loaded."""
    import json

    from services.adapters.contract_files import load_contracts, read_json
    from services.core.semantic.fingerprint import CACHEABLE_INTENTS
    from services.settings import CommonSettings

    settings = CommonSettings()
    vocabulary = read_json(settings.data_dir / "attributes.json")
    loaded = load_contracts(
        schemas_dir=settings.schemas_dir,
        mappings_dir=settings.mappings_dir,
        data_dir=settings.data_dir,
        known_slots=set(vocabulary["attributes"]),
        known_intents=CACHEABLE_INTENTS,
    )
    summary = {
        "schemas_dir": str(settings.schemas_dir),
        "mappings_dir": str(settings.mappings_dir),
        "data_dir": str(settings.data_dir),
        "mapped_fields": {
            "product": len(loaded.mappings.product_rules),
            "store": len(loaded.mappings.store_rules),
        },
        "unknown_fields": loaded.mappings.unknown_field.value,
        "admission_intents": [rule.intent for rule in loaded.admission.rules],
        "lexicon_version": loaded.lexicon.get("version"),
        "price_models": sorted(loaded.prices.models),
    }
    typer.echo(json.dumps(summary, ensure_ascii=False))


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
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from services.core.errors import CachecohError
    from services.settings import configuration_error, is_settings_error

    try:
        app()
    except (CachecohError, ValidationError, SettingsError) as exc:
        expected = isinstance(exc, CachecohError) or is_settings_error(exc)
        if _options["traceback"] or not expected:
            raise  # asked for, or another model's validation error (a bug): keep the traceback
        error = exc if isinstance(exc, CachecohError) else configuration_error(exc)
        hint = f" (fix: {error.hint})" if error.hint else ""
        typer.echo(f"cachecoh: error: {error}{hint}", err=True)
        sys.exit(ERROR_EXIT)
