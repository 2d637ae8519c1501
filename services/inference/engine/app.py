"""The engine's HTTP surface: vLLM's OpenAI-compatible server routes."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from services.core.openai_contract import ChatCompletionRequest
from services.inference.engine.answer import Vocabulary
from services.inference.engine.kv_events import ZmqKvEventPublisher
from services.inference.engine.service import (
    STAND_IN_NOTICE,
    ContextLengthExceededError,
    ModelNotFoundError,
    OfflineEngine,
)
from services.inference.engine.settings import EngineSettings
from services.inference.openai_schema import error_response, validation_error_handler
from services.inference.tokenization import OfflineTokenizer

logger = logging.getLogger(__name__)


def build_engine(settings: EngineSettings) -> OfflineEngine:
    """The composition root: tokenizer and vocabulary from the configured files, the KV
    event publisher when an endpoint is configured."""
    vocabulary = Vocabulary()
    if settings.vocabulary_path is not None:
        raw = json.loads(settings.vocabulary_path.read_text(encoding="utf-8"))
        vocabulary = Vocabulary.from_attributes_json(raw)
    publisher = (
        ZmqKvEventPublisher(settings.kv_events_endpoint, settings.kv_events_topic)
        if settings.kv_events_endpoint
        else None
    )
    return OfflineEngine(
        settings,
        OfflineTokenizer.from_file(settings.tokenizer_path),
        vocabulary,
        kv_events=publisher,
    )


def create_app(settings: EngineSettings, engine: OfflineEngine | None = None) -> FastAPI:
    engine = engine or build_engine(settings)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            engine.close()

    app = FastAPI(
        title="cachecoh offline engine",
        description=STAND_IN_NOTICE,
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.engine = engine
    app.add_exception_handler(RequestValidationError, validation_error_handler)

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200)

    @app.get("/version")
    async def version() -> dict[str, str]:
        return {"version": "cachecoh-offline-0.1.0", "stand_in_for": "vllm"}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return engine.models_payload()

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(engine.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.post("/reset_prefix_cache")
    async def reset_prefix_cache() -> dict[str, int]:
        return {"dropped_blocks": engine.reset_prefix_cache()}

    @app.post("/v1/chat/completions", response_model=None)
    async def chat_completions(
        request: ChatCompletionRequest, http_request: Request
    ) -> JSONResponse | StreamingResponse:
        if request.n not in (None, 1):
            return error_response(
                "only n=1 is supported", status=400, error_type="BadRequestError", param="n"
            )
        try:
            prepared = engine.prepare(request)
        except ModelNotFoundError as exc:
            return error_response(str(exc), status=404, error_type="NotFoundError", param="model")
        except ContextLengthExceededError as exc:
            return error_response(
                str(exc), status=400, error_type="BadRequestError", param="messages"
            )
        if request.stream:
            # vLLM's default: stream_options without include_usage still reports usage.
            options = request.stream_options
            include_usage = options is not None and options.include_usage is not False
            return StreamingResponse(
                engine.stream(prepared, include_usage=include_usage),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Request-Id": prepared.request_id},
            )
        body = await engine.complete(prepared)
        return JSONResponse(body, headers={"X-Request-Id": prepared.request_id})

    return app
