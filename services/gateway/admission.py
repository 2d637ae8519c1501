"""Which requests the caches may answer: a pure decision, no I/O.

A bypassed request is never stored. A product question is still grounded (the facts of
the products it names are put in front of it); other requests are forwarded as sent.
Personal data is not a reason: it is redacted into placeholders, in the key and in what
is sent upstream, and only a personal *intent* bypasses.
The reason is the ``reason`` label of ``request_cache_bypass_reason`` and of
``X-Cache: BYPASS; reason=...`` (docs/gateway.md lists them).
"""

from __future__ import annotations

from enum import StrEnum

from services.core.chat_request import ChatRequest, Question


class BypassReason(StrEnum):
    # before any lookup: the request itself is not cacheable
    REQUEST_TOO_LONG = "request_too_long"
    SEVERAL_CHOICES = "several_choices"
    UNSUPPORTED_MESSAGES = "unsupported_messages"
    QUESTION_TOO_LONG = "question_too_long"
    # the semantic extractor's verdict: a bypass intent, or no fingerprint at all
    COMPARE = "compare"
    RECOMMEND = "recommend"
    PREDICT = "predict"
    REALTIME = "realtime"
    PERSONAL = "personal"
    UNKNOWN_PRODUCT = "unknown_product"
    NO_FINGERPRINT = "no_fingerprint"
    # a general request (no fingerprint) sampled with temperature > 0
    TEMPERATURE = "temperature"
    # the pipeline's state
    KILL_SWITCH = "kill_switch"
    STORE_UNAVAILABLE = "store_unavailable"
    FACTS_UNAVAILABLE = "facts_unavailable"
    NO_FACTS = "no_facts"


def admit_length(text_chars: int, *, max_keyed_chars: int) -> BypassReason | None:
    """Checked first: a request with more message text than ``max_keyed_chars`` is neither
    redacted nor keyed (bounded work per request), so it can never be cached."""
    return BypassReason.REQUEST_TOO_LONG if text_chars > max_keyed_chars else None


def admit_request(
    request: ChatRequest,
    question: Question | None,
    *,
    max_question_chars: int,
) -> BypassReason | None:
    """``None`` when the caches may answer ``request``, else why not (first reason wins).

    Sampling is no reason here: a fingerprinted question is answered with the gateway's
    own sampling; a general one is checked by :func:`deterministic`.
    """
    if request.params.get("n", 1) != 1:
        return BypassReason.SEVERAL_CHOICES
    if question is None:
        return BypassReason.UNSUPPORTED_MESSAGES
    if len(question.text) > max_question_chars:
        # Fingerprinting cost grows with the text; a question this long is not a
        # customer-service question a paraphrase could share anyway.
        return BypassReason.QUESTION_TOO_LONG
    return None


def deterministic(request: ChatRequest, *, default_temperature: float, cache_sampled: bool) -> bool:
    """May a general answer (the client's own sampling) be stored and shared?"""
    return cache_sampled or request.temperature(default_temperature) == 0
