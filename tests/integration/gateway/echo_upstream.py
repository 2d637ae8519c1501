"""An OpenAI-compatible upstream that answers with the prompt it received.

With it, a test sees exactly what reached the model: an answer that carries another
asker's wording, an injected instruction or a raw personal value is visible in the body.
It runs as a real HTTP server (uvicorn) on 127.0.0.1, so the gateway is tested through
its real upstream client.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import StreamingResponse


def echo_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(f"[{m.get('role')}] {m.get('content')}" for m in messages)


@dataclass
class EchoUpstream:
    received: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> FastAPI:
        app = FastAPI()
        counter = itertools.count(1)

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            model = {"id": "echo", "object": "model", "created": 1, "owned_by": "tests"}
            return {"object": "list", "data": [model]}

        @app.post("/v1/chat/completions", response_model=None)
        async def chat(request: Request) -> Response:
            payload = await request.json()
            self.received.append(payload)
            text = echo_text(payload["messages"])
            ident = f"chatcmpl-echo{next(counter)}"
            usage = {
                "prompt_tokens": len(text),
                "completion_tokens": len(text),
                "total_tokens": 2 * len(text),
            }
            if not payload.get("stream"):
                return Response(
                    json.dumps(
                        {
                            "id": ident,
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": payload["model"],
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop",
                                    "logprobs": None,
                                }
                            ],
                            "usage": usage,
                        }
                    ),
                    media_type="application/json",
                )

            async def events() -> AsyncIterator[bytes]:
                base = {
                    "id": ident,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": payload["model"],
                }
                deltas = [{"role": "assistant", "content": ""}] + [
                    {"content": text[i : i + 40]} for i in range(0, len(text), 40)
                ]
                for delta in deltas:
                    chunk = {
                        **base,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                    }
                    yield f"data: {json.dumps(chunk)}\n\n".encode()
                last = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                yield f"data: {json.dumps(last)}\n\n".encode()
                if (payload.get("stream_options") or {}).get("include_usage"):
                    tail = {**base, "choices": [], "usage": usage}
                    yield f"data: {json.dumps(tail)}\n\n".encode()
                yield b"data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream")

        return app
