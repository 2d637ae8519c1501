"""What the model is sent on a miss (pure): the key-completeness rule in code.

A fingerprinted single question is asked as the canonical question of its fingerprint in
the answer language, with the facts, the SOP template and the keyed system prompt, and
the gateway's own sampling: the asker's wording never reaches the model, so the answer is
valid for everyone whose request maps to the key. A conversation (request layer only,
keyed by all of it) and a general request are sent as keyed: redacted, placeholders made
readable.
"""

from __future__ import annotations

from typing import Any

from services.core.canonical_question import subject_name
from services.core.catalog import ProductFacts
from services.core.chat_request import Question, redact_messages
from services.core.prompt import sop_prompt
from services.core.redacted_text import for_upstream
from services.core.semantic.fingerprint import Fingerprint
from services.gateway.values import AnswerKeys, ChatCall, GatewayPolicy


def grounded_payload(
    policy: GatewayPolicy,
    call: ChatCall,
    question: Question,
    fingerprint: Fingerprint,
    keys: AnswerKeys,
    facts: tuple[ProductFacts, ...],
) -> dict[str, Any]:
    """The canonical prompt of a fingerprinted miss, with the gateway's sampling."""
    system_prompt = for_upstream(question.system_prompt) if question.system_prompt else None
    if question.single:
        text = policy.vocabulary.render(
            fingerprint, call.language, subject_name(facts, keys.product, call.language)
        )
        conversation: tuple[tuple[str, str], ...] = ()
    else:
        text = for_upstream(question.text)
        conversation = tuple((role, for_upstream(t)) for role, t in question.conversation)
    prompt = sop_prompt(
        policy.sop,
        attribute=fingerprint.attribute,
        question=text,
        client_system_prompt=system_prompt,
        facts=facts,
        conversation=conversation,
    )
    return {
        **call.answers.answer_params(call.request.params),
        "model": call.request.model,
        "messages": prompt.openai_messages(),
    }


def general_payload(call: ChatCall) -> dict[str, Any]:
    """A general request as keyed: the redacted messages (readable placeholders)."""
    messages = redact_messages(call.redacted, for_upstream)
    return {
        **call.request.params,
        "model": call.request.model,
        "messages": [dict(m) for m in messages],
    }
