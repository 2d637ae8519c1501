"""Run the router under uvicorn (``cachecoh serve router``)."""

from __future__ import annotations

import uvicorn

from services.inference.router.app import create_app
from services.inference.router.settings import RouterSettings


def serve(settings: RouterSettings) -> None:
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=5,
    )
