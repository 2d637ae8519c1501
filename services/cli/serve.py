"""`cachecoh serve ...` commands."""

from __future__ import annotations

from typing import Annotated, Any

import typer

app = typer.Typer(help="Run a service (gateway, engine, router).", no_args_is_help=True)


@app.command("engine")
def engine(
    host: Annotated[
        str | None, typer.Option(help="Bind address (env CACHECOH_ENGINE_HOST).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (env CACHECOH_ENGINE_PORT).")] = None,
) -> None:
    """Run the offline engine (vLLM's OpenAI API and metrics; a stand-in, not an LLM).

    Everything else is configured with CACHECOH_ENGINE_* variables (docs/inference.md).
    """
    from services.inference.engine.bootstrap import serve
    from services.inference.engine.settings import EngineSettings

    overrides: dict[str, Any] = {"host": host, "port": port}
    serve(EngineSettings(**{k: v for k, v in overrides.items() if v is not None}))


@app.command("router")
def router(
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            help="Replica base URL; repeat for N replicas (env CACHECOH_ROUTER_UPSTREAMS)."
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            help="round_robin | least_loaded | prefix_affinity (env CACHECOH_ROUTER_POLICY)."
        ),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="Bind address (env CACHECOH_ROUTER_HOST).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (env CACHECOH_ROUTER_PORT).")] = None,
) -> None:
    """Run the prefix-aware router in front of N inference replicas.

    Everything else is configured with CACHECOH_ROUTER_* variables (docs/inference.md).
    """
    from services.inference.router.bootstrap import serve
    from services.inference.router.settings import RouterSettings

    overrides: dict[str, Any] = {
        "upstreams": upstream or None,
        "policy": policy,
        "host": host,
        "port": port,
    }
    # A settings error reaches the CLI's top level: one line naming the variable.
    settings = RouterSettings(**{k: v for k, v in overrides.items() if v is not None})
    serve(settings)


@app.command("gateway")
def gateway(
    host: Annotated[str | None, typer.Option(help="Bind address (env CACHECOH_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (env CACHECOH_PORT).")] = None,
    upstream: Annotated[
        str | None, typer.Option(help="OpenAI-compatible upstream (env CACHECOH_UPSTREAM_URL).")
    ] = None,
) -> None:
    """Run the caching gateway (OpenAI Chat Completions API, request + semantic layers).

    Everything else is configured with CACHECOH_* variables (docs/gateway.md); the API
    keys, admin token and key secrets have no defaults.
    """
    from services.gateway.bootstrap import serve
    from services.gateway.settings import GatewaySettings

    overrides: dict[str, Any] = {"host": host, "port": port, "upstream_url": upstream}
    # A settings error reaches the CLI's top level: one line naming the variable.
    settings = GatewaySettings(**{k: v for k, v in overrides.items() if v is not None})
    serve(settings)
