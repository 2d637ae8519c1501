"""The language an answer is written in (pure): part of the semantic key.

Detected from the question (any Han character: Chinese; otherwise English), unless the
client names one with ``Content-Language``. Only languages the canonical questions can
be rendered in are accepted; anything else is a 400 naming the header, never a silent
fallback that would hand a Chinese asker an English answer or the reverse.
"""

from __future__ import annotations

import re

from services.core.chat_request import InvalidRequest

CONTENT_LANGUAGE_HEADER = "content-language"
SUPPORTED_LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = "en"

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# RFC 5646 shape: a primary subtag, then subtags (region, script, ...).
_TAG = re.compile(r"^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$")


def detect_language(text: str) -> str:
    """``zh`` when the question has a Han character, else ``en``."""
    return "zh" if _HAN.search(text) else DEFAULT_LANGUAGE


def requested_language(header: str | None) -> str | None:
    """The primary language of a ``Content-Language`` header (first tag), or ``None``."""
    if header is None or not header.strip():
        return None
    first = header.split(",", 1)[0].strip()
    if not _TAG.match(first):
        raise InvalidRequest(f"header:{CONTENT_LANGUAGE_HEADER}", "must be a language tag")
    primary = first.split("-", 1)[0].lower()
    if primary not in SUPPORTED_LANGUAGES:
        raise InvalidRequest(
            f"header:{CONTENT_LANGUAGE_HEADER}",
            f"answers are written in {', '.join(SUPPORTED_LANGUAGES)}; got {first!r}",
        )
    return primary


def answer_language(question: str, requested: str | None) -> str:
    return requested if requested is not None else detect_language(question)
