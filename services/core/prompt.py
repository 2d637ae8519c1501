"""Canonical prompts: the layout that makes prefix caching work (pure, no I/O).

vLLM's automatic prefix caching reuses the KV blocks of a prompt's leading tokens only
when those tokens are identical, block for block. So the prompt is laid out from the
most shared part to the least shared one, and every shared part is serialised the same
way every time:

1. the system prompt (shared by every request of a tenant),
2. the SOP template for the intent/attribute family (shared by a family's questions),
3. the product facts from the spec store, restricted to the attributes the answer needs,
   tagged with their ``spec_version`` (shared by the questions about one product slot),
4. the conversation so far, then the question, last.

Parts 1-3 form the *static prefix*: one system message whose bytes depend only on
(system prompt, template, facts). Nothing request-specific (timestamps, request ids,
user names) is accepted before the dynamic part, so two requests with equal static
inputs produce byte-identical prefixes.

Also here, because the gateway applies it to the same request body: tenant isolation of
the prefix cache through vLLM's ``cache_salt`` (:func:`apply_tenant_salt`).

Exceptions::

    PromptError (ValueError)
    ├── EmptyQuestionError         the question is blank
    ├── InvalidTurnError           a conversation turn has a role other than user/assistant
    ├── SopCatalogError            sop_templates.json content is malformed
    └── TenantSaltError
        ├── MissingTenantError     no authenticated tenant to salt with
        └── InvalidSaltKeyError    the salt key from settings is empty
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from services.core.catalog import ProductFacts
from services.core.errors import CachecohError

#: Request-body field vLLM reads the prefix-cache salt from (vLLM >= 0.9).
CACHE_SALT_FIELD = "cache_salt"

#: ChatML markers; the offline engine renders chat requests with this template, and the
#: shipped tokenizer knows them as special tokens.
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"

#: The facts block markup. The engine parses it back (see ``FACTS_BLOCK_PATTERN``).
FACTS_HEADER = "## Product facts"
_FACTS_OPEN = '<facts product="{product}" spec_version="{version}">'
_FACTS_CLOSE = "</facts>"
FACTS_BLOCK_PATTERN = re.compile(
    r'<facts product="(?P<product>[^"]*)" spec_version="(?P<version>\d+)">\n'
    r"(?P<body>.*?)\n</facts>",
    re.DOTALL,
)

ConversationRole = Literal["user", "assistant"]


class PromptError(CachecohError, ValueError):
    """Base class for prompt-building errors."""


class EmptyQuestionError(PromptError):
    def __init__(self) -> None:
        super().__init__("the question is empty")


class InvalidTurnError(PromptError):
    def __init__(self, index: int, role: str) -> None:
        self.index = index
        self.role = role
        super().__init__(f"conversation turn {index} has role {role!r}; use 'user' or 'assistant'")


class SopCatalogError(PromptError):
    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"invalid SOP template catalog: {detail}")


class TenantSaltError(PromptError):
    """Base class for tenant-salt errors."""


class MissingTenantError(TenantSaltError):
    def __init__(self) -> None:
        super().__init__("no authenticated tenant: refusing to build an unsalted request")


class InvalidSaltKeyError(TenantSaltError):
    def __init__(self) -> None:
        super().__init__("the cache-salt key is empty; configure a secret key")


@dataclass(frozen=True, slots=True)
class SopTemplate:
    """Standard operating procedure for one intent/attribute family."""

    template_id: str
    intent: str
    attributes: tuple[str, ...]
    text: str
    #: Example phrasings (zh/en), corpus for the offline tokenizer; never part of the prompt.
    phrases: tuple[str, ...] = ()
    #: Product categories the template applies to (empty: all).
    applies_to: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SopCatalog:
    """The shipped system prompt and SOP templates (``sop_templates.json``)."""

    system_prompt: str
    templates: tuple[SopTemplate, ...]
    generic_template_id: str

    @property
    def generic(self) -> SopTemplate:
        return self.by_id(self.generic_template_id)

    def by_id(self, template_id: str) -> SopTemplate:
        for template in self.templates:
            if template.template_id == template_id:
                return template
        raise KeyError(template_id)

    def for_attribute(self, attribute: str) -> SopTemplate | None:
        """The template of the family an attribute belongs to, if any."""
        for template in self.templates:
            if attribute in template.attributes:
                return template
        return None


def sop_catalog_from_dict(raw: Mapping[str, Any]) -> SopCatalog:
    """Parse ``sop_templates.json`` content; every attribute belongs to at most one family."""
    try:
        templates = tuple(
            SopTemplate(
                template_id=str(item["id"]),
                intent=str(item["intent"]),
                attributes=tuple(str(a) for a in item.get("attributes", ())),
                text=_canonical_text(str(item["text"])),
                phrases=tuple(str(p) for p in item.get("phrases", ())),
                applies_to=tuple(str(c) for c in item.get("applies_to", ())),
            )
            for item in raw["templates"]
        )
        catalog = SopCatalog(
            system_prompt=_canonical_text(str(raw["system_prompt"])),
            templates=templates,
            generic_template_id=str(raw["generic_template"]),
        )
    except (KeyError, TypeError) as exc:
        raise SopCatalogError(f"missing or mistyped field: {exc}") from exc
    seen: dict[str, str] = {}
    for template in templates:
        for attribute in template.attributes:
            if attribute in seen:
                raise SopCatalogError(
                    f"attribute {attribute!r} is in both {seen[attribute]!r} and "
                    f"{template.template_id!r}"
                )
            seen[attribute] = template.template_id
    try:
        catalog.generic  # noqa: B018 - validates that the generic template exists
    except KeyError as exc:
        raise SopCatalogError(f"generic template {exc} is not defined") from exc
    return catalog


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    role: ConversationRole
    content: str


@dataclass(frozen=True, slots=True)
class PromptInputs:
    """Everything a canonical prompt is built from; nothing else can leak into it."""

    system_prompt: str
    template: SopTemplate
    question: str
    #: Facts of the product(s) the answer depends on (the store's policies use the
    #: reserved product id ``store``). Rendered in the order given.
    facts: tuple[ProductFacts, ...] = ()
    #: Attributes the answer needs; the facts are restricted to them. Empty: keep all.
    attributes: tuple[str, ...] = ()
    conversation: tuple[ConversationTurn, ...] = ()


@dataclass(frozen=True, slots=True)
class CanonicalPrompt:
    """A prompt as OpenAI ``messages`` plus its byte-exact static prefix."""

    #: The system message content: system prompt, SOP template, facts.
    static_prefix: str
    #: ``messages`` for the chat API; the first is the static prefix as a system message.
    messages: tuple[Mapping[str, str], ...]

    @property
    def static_prefix_bytes(self) -> bytes:
        return self.static_prefix.encode("utf-8")

    @property
    def static_prefix_sha256(self) -> str:
        return hashlib.sha256(self.static_prefix_bytes).hexdigest()

    def openai_messages(self) -> list[dict[str, str]]:
        """A fresh, mutable copy for a request body."""
        return [dict(message) for message in self.messages]


def _canonical_text(text: str) -> str:
    """NFC, ``\\n`` line ends, no trailing blanks: equal text gives equal bytes."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def restrict_facts(facts: ProductFacts, attributes: Iterable[str]) -> ProductFacts:
    """The same product at the same version, with only the given attributes' specs."""
    wanted = set(attributes)
    return ProductFacts(
        product_id=facts.product_id,
        category=facts.category,
        brand=facts.brand,
        spec_version=facts.spec_version,
        names_zh=facts.names_zh,
        names_en=facts.names_en,
        specs=MappingProxyType({k: v for k, v in facts.specs.items() if k in wanted}),
    )


def canonical_json(value: Any) -> str:
    """Stable JSON: sorted keys, no whitespace, UTF-8 text kept as is."""
    return json.dumps(_plain(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def render_facts_block(facts: ProductFacts) -> str:
    """One product's facts as a tagged, canonically serialised block."""
    body = canonical_json(
        {
            "brand": facts.brand,
            "category": facts.category,
            "name": facts.display_name,
            "names": {"en": facts.names_en, "zh": facts.names_zh},
            "specs": facts.specs,
        }
    )
    opening = _FACTS_OPEN.format(product=facts.product_id, version=facts.spec_version)
    return f"{opening}\n{body}\n{_FACTS_CLOSE}"


def build_prompt(inputs: PromptInputs) -> CanonicalPrompt:
    """Lay out a canonical prompt: static prefix first, the question last."""
    question = _canonical_text(inputs.question)
    if not question:
        raise EmptyQuestionError()
    facts = tuple(
        restrict_facts(f, inputs.attributes) if inputs.attributes else f for f in inputs.facts
    )
    sections = [
        _canonical_text(inputs.system_prompt),
        f"## Procedure ({inputs.template.template_id})\n{_canonical_text(inputs.template.text)}",
        "\n".join([FACTS_HEADER, *(render_facts_block(f) for f in facts)])
        if facts
        else f"{FACTS_HEADER}\n(none)",
    ]
    static_prefix = "\n\n".join(sections)
    messages: list[Mapping[str, str]] = [
        MappingProxyType({"role": "system", "content": static_prefix})
    ]
    for index, turn in enumerate(inputs.conversation):
        if turn.role not in ("user", "assistant"):
            raise InvalidTurnError(index, turn.role)
        messages.append(
            MappingProxyType({"role": turn.role, "content": _canonical_text(turn.content)})
        )
    messages.append(MappingProxyType({"role": "user", "content": question}))
    return CanonicalPrompt(static_prefix=static_prefix, messages=tuple(messages))


OPERATOR_INSTRUCTIONS_HEADING = "## Operator instructions"


def keyed_system_prompt(system_prompt: str, client_prompt: str | None) -> str:
    """The deployment's system prompt, then the client's own (which is part of the key)."""
    if not client_prompt:
        return system_prompt
    return f"{system_prompt}\n\n{OPERATOR_INSTRUCTIONS_HEADING}\n{client_prompt}"


def sop_prompt(
    sop: SopCatalog,
    *,
    attribute: str,
    question: str,
    client_system_prompt: str | None,
    facts: tuple[ProductFacts, ...],
    conversation: Iterable[tuple[str, str]] = (),
) -> CanonicalPrompt:
    """The canonical prompt of a cacheable question: the SOP template of its attribute (or
    the generic one), the facts restricted to that attribute, earlier turns as user or
    assistant turns (any non-user role speaks as the assistant)."""
    return build_prompt(
        PromptInputs(
            system_prompt=keyed_system_prompt(sop.system_prompt, client_system_prompt),
            template=sop.for_attribute(attribute) or sop.generic,
            question=question,
            facts=facts,
            attributes=(attribute,),
            conversation=tuple(
                ConversationTurn("user" if role == "user" else "assistant", text)
                for role, text in conversation
            ),
        )
    )


def message_text(content: Any) -> str:
    """The text of an OpenAI message ``content`` (a string or a list of text parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return str(content)


def render_chat_prompt(
    messages: Sequence[Mapping[str, Any]], *, add_generation_prompt: bool = True
) -> str:
    """ChatML rendering, as a Qwen-style chat template does it.

    Rendering is message by message, so a prompt whose first message is a canonical
    static prefix starts with the same bytes as every other prompt with that prefix.
    """
    parts = [
        f"{IM_START}{message.get('role', 'user')}\n{message_text(message.get('content'))}{IM_END}\n"
        for message in messages
    ]
    if add_generation_prompt:
        parts.append(f"{IM_START}assistant\n")
    return "".join(parts)


def derive_cache_salt(tenant: str, salt_key: bytes) -> str:
    """A tenant's prefix-cache salt: HMAC-SHA256(key, tenant), so salts are unguessable."""
    if not tenant:
        raise MissingTenantError()
    if not salt_key:
        raise InvalidSaltKeyError()
    return hmac.new(salt_key, tenant.encode("utf-8"), hashlib.sha256).hexdigest()


def apply_tenant_salt(body: Mapping[str, Any], tenant: str, *, salt_key: bytes) -> dict[str, Any]:
    """A copy of a chat request body salted for the authenticated tenant.

    Any client-supplied ``cache_salt`` is dropped: a client that could choose its salt
    could pick another tenant's and probe its prefix cache through timing.
    """
    salted = {key: value for key, value in body.items() if key != CACHE_SALT_FIELD}
    salted[CACHE_SALT_FIELD] = derive_cache_salt(tenant, salt_key)
    return salted
