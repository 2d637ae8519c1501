"""Keys of both answer-cache layers from a parsed request (pure, no I/O; parsing is
``core.chat_request``).

Request layer: SHA-256 (as an HMAC keyed by a deployment secret, salted with tenant and
namespace) over a canonical form of everything that changes the output: the normalised
messages with personal data replaced by placeholders (the caller redacts, see
``chat_request.redact_messages``), the model and the output-changing parameters,
serialised as JSON with sorted keys and compact separators.

Semantic layer: the same salting over the material of
``services.core.canonical_question.semantic_key_material``: paraphrases share it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

KEY_VERSION = "rk1"
NAMESPACE_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_SEP = b"\x1f"


def canonical_request(
    model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> bytes:
    """The request layer's canonical form: compact JSON, sorted keys."""
    return orjson.dumps(
        {"v": KEY_VERSION, "model": model, "messages": list(messages), "params": params},
        option=orjson.OPT_SORT_KEYS,
        default=dict,
    )


def salted_digest(secret: bytes, tenant: str, namespace: str, canonical: bytes) -> str:
    """HMAC-SHA256 over tenant, namespace and a canonical form: no cross-tenant keys."""
    if not secret:
        raise ValueError("the request-key secret is empty")
    if not tenant:
        raise ValueError("a key needs an authenticated tenant")
    material = tenant.encode() + _SEP + namespace.encode() + _SEP + canonical
    return hmac.new(secret, material, hashlib.sha256).hexdigest()
