"""Run the engine under uvicorn (``cachecoh serve engine``)."""

from __future__ import annotations

import uvicorn

from services.inference.engine.app import create_app
from services.inference.engine.settings import EngineSettings


def serve(settings: EngineSettings) -> None:
    app = create_app(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=5,
    )
