"""The router's request path: pick a replica, forward, retry on connection failures.

A request whose connection to a replica fails before any response byte arrived is
retried on another replica (chat completions have no side effects), and the replica is
ejected. Once a stream has started it cannot move: if the replica dies mid-stream the
client gets an error event instead of a silently truncated answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from fastapi import Request, Response
from fastapi.responses import StreamingResponse

from services.core.kv_index import KvBlockIndex
from services.core.openai_contract import error_body
from services.core.prompt import CACHE_SALT_FIELD
from services.core.routing import NoHealthyReplicaError, RouteDecision, RoutingPolicy
from services.inference.openai_schema import error_response
from services.inference.router.keying import PromptBlocks, PromptHasher
from services.inference.router.replicas import ReplicaPool

REPLICA_HEADER = "x-cachecoh-replica"
REASON_HEADER = "x-cachecoh-route-reason"
PREFIX_ROUTING_HEADER = "x-cachecoh-prefix-routing"
_FORWARDED_REQUEST_HEADERS = ("authorization", "content-type", "x-request-id", "accept")
_FORWARDED_RESPONSE_HEADERS = ("content-type", "x-request-id", "cache-control")
#: Failures where the replica never processed the request: safe to retry elsewhere.
_RETRYABLE = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError)


def _forward_headers(request: Request) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if k.lower() in _FORWARDED_REQUEST_HEADERS}


def _response_headers(upstream: httpx.Response, decision: RouteDecision) -> dict[str, str]:
    headers = {
        k: v for k, v in upstream.headers.items() if k.lower() in _FORWARDED_RESPONSE_HEADERS
    }
    headers[REPLICA_HEADER] = decision.replica
    headers[REASON_HEADER] = decision.reason.value
    return headers


def _bad_request(message: str, param: str | None = None) -> Response:
    return error_response(message, status=400, error_type="BadRequestError", param=param)


class ChatProxy:
    def __init__(self, pool: ReplicaPool, hasher: PromptHasher, index: KvBlockIndex) -> None:
        self._pool = pool
        self._hasher = hasher
        self._index = index

    def _prompt_blocks(self, payload: dict[str, Any], request: Request) -> PromptBlocks | None:
        # The gateway's prefix-routing kill switch: route by load instead of by prefix.
        if request.headers.get(PREFIX_ROUTING_HEADER, "on") == "off":
            return None
        policy = self._pool.policy
        if policy not in (RoutingPolicy.PREFIX_AFFINITY, RoutingPolicy.KV_AWARE):
            return None
        salt = payload.get(CACHE_SALT_FIELD)
        return self._hasher.blocks(
            payload["messages"],
            salt if isinstance(salt, str) else None,
            whole_prompt=policy is RoutingPolicy.KV_AWARE,
        )

    async def chat_completions(self, request: Request, client: httpx.AsyncClient) -> Response:
        raw = await request.body()
        try:
            payload = json.loads(raw)
        except json.JSONDecodeError as exc:
            return _bad_request(f"request body is not JSON: {exc.msg}")
        messages = payload.get("messages") if isinstance(payload, dict) else None
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return _bad_request("messages must be a list of message objects", "messages")
        blocks = self._prompt_blocks(payload, request)
        matched = (
            self._index.prefix_matches(blocks.hashes, self._pool.names)
            if blocks is not None and self._pool.policy is RoutingPolicy.KV_AWARE
            else None
        )
        block_keys = blocks.block_keys() if matched is not None and blocks else []
        stream = bool(payload.get("stream"))
        headers = _forward_headers(request)
        tried: set[str] = set()
        while True:
            try:
                decision = self._pool.choose(
                    blocks.prefix_key if blocks else None,
                    excluded=tried,
                    matched=matched,
                    block_keys=block_keys,
                )
            except NoHealthyReplicaError as exc:
                status = 502 if tried else 503
                return error_response(str(exc), status=status, error_type="ServiceUnavailable")
            url = f"{self._pool.url(decision.replica)}/v1/chat/completions"
            try:
                if stream:
                    upstream = await client.send(
                        client.build_request("POST", url, content=raw, headers=headers),
                        stream=True,
                    )
                    return StreamingResponse(
                        self._relay(upstream, decision),
                        status_code=upstream.status_code,
                        headers=_response_headers(upstream, decision),
                    )
                upstream = await client.post(url, content=raw, headers=headers)
            except _RETRYABLE as exc:
                self._pool.finish(decision.replica)
                self._pool.connection_failed(decision.replica, type(exc).__name__)
                tried.add(decision.replica)
                continue
            except httpx.TimeoutException:
                self._pool.finish(decision.replica)
                return error_response(
                    f"replica {decision.replica} timed out", status=504, error_type="Timeout"
                )
            self._pool.finish(decision.replica)
            return Response(
                upstream.content,
                status_code=upstream.status_code,
                headers=_response_headers(upstream, decision),
            )

    async def _relay(
        self, upstream: httpx.Response, decision: RouteDecision
    ) -> AsyncIterator[bytes]:
        try:
            async for chunk in upstream.aiter_raw():
                yield chunk
        except httpx.TransportError as exc:
            self._pool.connection_failed(decision.replica, type(exc).__name__)
            body = error_body(
                f"replica {decision.replica} failed mid-stream ({type(exc).__name__})",
                code=502,
                error_type="UpstreamStreamError",
            )
            yield f"data: {json.dumps(body)}\n\n".encode()
        finally:
            await upstream.aclose()
            self._pool.finish(decision.replica)
