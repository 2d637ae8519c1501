"""Per-request cache controls from HTTP headers (pure).

==========================  =====================================================
``Cache-Control: no-cache``  do not serve from the cache; call upstream, then fill
``Cache-Control: no-store``  never store this request's answer (hits may still serve)
``Cache-Control: max-age=N`` serve a cached answer only if it is at most N s old
``X-Cache-TTL: N``           store this answer for N seconds (within the bounds)
``X-Cache-Namespace: name``  a separate key space inside the tenant
``X-Cache-Tags: a, b``       extra purge tags of a general answer (at most 16)
``Content-Language: zh``     the answer language (else detected from the question)
==========================  =====================================================

A header that cannot be honoured raises ``InvalidRequest`` naming the header.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.core.answer_language import requested_language
from services.core.chat_request import InvalidRequest
from services.core.request_key import NAMESPACE_PATTERN
from services.core.tags import CLIENT_TAG_PATTERN

TTL_HEADER = "x-cache-ttl"
NAMESPACE_HEADER = "x-cache-namespace"
TAGS_HEADER = "x-cache-tags"
MAX_CLIENT_TAGS = 16
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, slots=True)
class CacheControls:
    no_cache: bool = False
    no_store: bool = False
    max_age_s: int | None = None
    ttl_s: int | None = None
    namespace: str = DEFAULT_NAMESPACE
    #: Purge tags the client declared for a general answer (validated, sorted).
    tags: tuple[str, ...] = ()
    #: ``Content-Language``'s primary language, if the client named one.
    language: str | None = None

    @property
    def overrides_cache(self) -> bool:
        """A control that makes the gateway call upstream or keep an answer longer: it is
        rate-limited per API key, so one client cannot refill or pin what others get."""
        return self.no_cache or self.ttl_s is not None

    def accepts_age(self, age_s: int) -> bool:
        return self.max_age_s is None or age_s <= self.max_age_s


DEFAULT_CONTROLS = CacheControls()


def parse_cache_controls(
    cache_control: str | None,
    ttl: str | None,
    namespace: str | None,
    *,
    min_ttl_s: int,
    max_ttl_s: int,
    tags: str | None = None,
    content_language: str | None = None,
) -> CacheControls:
    if (
        cache_control is None
        and ttl is None
        and namespace is None
        and tags is None
        and content_language is None
    ):
        return DEFAULT_CONTROLS
    no_cache = no_store = False
    max_age: int | None = None
    for directive in (cache_control or "").split(","):
        name, _, value = directive.strip().partition("=")
        name = name.strip().lower()
        if name == "no-cache":
            no_cache = True
        elif name == "no-store":
            no_store = True
        elif name == "max-age":
            max_age = _seconds(value.strip().strip('"'), "cache-control")
            if max_age == 0:
                no_cache = True
    ttl_s: int | None = None
    if ttl is not None:
        ttl_s = _seconds(ttl.strip(), TTL_HEADER)
        if not min_ttl_s <= ttl_s <= max_ttl_s:
            raise InvalidRequest(
                f"header:{TTL_HEADER}", f"must be between {min_ttl_s} and {max_ttl_s} seconds"
            )
    space = DEFAULT_NAMESPACE
    if namespace is not None:
        space = namespace.strip()
        if not NAMESPACE_PATTERN.match(space):
            raise InvalidRequest(
                f"header:{NAMESPACE_HEADER}", "must be 1-64 characters of A-Z a-z 0-9 _ . -"
            )
    return CacheControls(
        no_cache,
        no_store,
        max_age,
        ttl_s,
        space,
        _client_tags(tags),
        requested_language(content_language),
    )


def _client_tags(header: str | None) -> tuple[str, ...]:
    if header is None:
        return ()
    names = {t for t in header.replace(",", " ").split() if t}
    if len(names) > MAX_CLIENT_TAGS:
        raise InvalidRequest(f"header:{TAGS_HEADER}", f"at most {MAX_CLIENT_TAGS} tags")
    for name in names:
        if not CLIENT_TAG_PATTERN.match(name):
            raise InvalidRequest(
                f"header:{TAGS_HEADER}", "each tag must be 1-64 characters of A-Z a-z 0-9 _ . + -"
            )
    return tuple(sorted(names))


def _seconds(value: str, header: str) -> int:
    # ASCII only: str.isdigit() accepts "²" (a latin-1 header byte), which int() refuses.
    if not (value.isascii() and value.isdigit()) or len(value) > 10:
        raise InvalidRequest(f"header:{header}", "must be a whole number of seconds")
    return int(value)
