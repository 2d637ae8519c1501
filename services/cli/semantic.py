"""`cachecoh semantic ...` commands."""

from __future__ import annotations

import json
from typing import Annotated

import typer

app = typer.Typer(help="Semantic-cache operations.", no_args_is_help=True)


@app.command("unresolved")
def unresolved(
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many terms to list.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Most frequent product-like mentions and cue words that ended in no fingerprint
    (counted and redacted by the gateway), so operators can add aliases to catalog.json."""
    import asyncio

    from services.adapters.redis_tag_store import connect_redis
    from services.semantic.unresolved import UnresolvedStore
    from services.settings import CommonSettings

    settings = CommonSettings()

    async def read() -> list[tuple[str, int]]:
        client = connect_redis(
            settings.redis_url.get_secret_value(), cluster=settings.redis_cluster
        )
        try:
            return await UnresolvedStore(client, settings.redis_prefix).top(limit)
        finally:
            await client.aclose()

    rows = asyncio.run(read())
    if as_json:
        typer.echo(json.dumps([{"term": t, "count": c} for t, c in rows], ensure_ascii=False))
        return
    for term, count in rows:
        typer.echo(f"{count:>8}  {term}")
