"""How a stored answer is served (pure): the parts every serving of one entry shares.

Decoded metadata, the cache headers and the SSE replay are the same for every hit on the
same stored bytes, so the service computes them once per entry (``memo.HitMemo``) and
only adds what is per response (age, a fresh ``id``/``created``). Formatting only: the
guarded lookup in Redis decided that the entry may be served.
"""

from __future__ import annotations

import orjson

from services.core.answers import StreamReplay, decode_answer
from services.core.keys import Layer
from services.gateway.memo import PreparedHit
from services.gateway.values import ORIGIN_HEADER, CacheState, CacheStatus


def prepare_hit(layer: Layer, digest: str, body: bytes) -> PreparedHit:
    """Raises ``AnswerFormatError`` for bytes this version cannot read (served as a miss)."""
    answer = decode_answer(body)
    meta = answer.meta
    headers = {
        "x-cache": CacheStatus(CacheState.HIT, layer).header(),
        "x-cache-key": f"{layer.value}:{meta.product}:{digest}",
        "etag": meta.etag,
        "surrogate-key": meta.surrogate_key,
        ORIGIN_HEADER: meta.origin,
    }
    replay = StreamReplay.of(orjson.loads(answer.response), meta.chunks)
    return PreparedHit(body, answer, headers, replay)
