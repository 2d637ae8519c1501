"""FastAPI glue of the OpenAI contract (``services.core.openai_contract``) for the engine
and the router: error responses in OpenAI's envelope, and 400 (not 422) for invalid
requests, as OpenAI and vLLM answer.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from services.core.openai_contract import error_body, error_location


def error_response(
    message: str, *, status: int, error_type: str, param: str | None = None
) -> JSONResponse:
    return JSONResponse(
        error_body(message, error_type=error_type, param=param, code=status), status_code=status
    )


async def validation_error_handler(_: Request, exc: Exception) -> JSONResponse:
    """Invalid requests are 400 BadRequestError (as with OpenAI and vLLM), not 422."""
    if not isinstance(exc, RequestValidationError):
        raise exc
    first = exc.errors()[0] if exc.errors() else {}
    location = error_location(tuple(first.get("loc", ())))
    detail = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
    message = f"{location or 'request'}: {detail}"
    return error_response(message, status=400, error_type="BadRequestError", param=location or None)
