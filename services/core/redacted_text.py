"""Redacted text as the extractor and the upstream model see it (pure).

The redactor replaces a finding with a NUL-delimited placeholder (``\\0cn_mobile\\0``)
that no client text can spell, which is what the request key holds. The model is
sent the same text with readable typed placeholders (``[cn_mobile]``): what reaches the
model is then a function of the key. The extractor gets the text without them, so a
placeholder is never read as a product name or a number it does not understand.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile("\x00([a-z_]+)\x00")
_SPACES = re.compile(r" {2,}")


def for_upstream(text: str) -> str:
    return _PLACEHOLDER.sub(r"[\1]", text) if "\x00" in text else text


def for_extractor(text: str) -> str:
    if "\x00" not in text:
        return text
    return _SPACES.sub(" ", _PLACEHOLDER.sub(" ", text)).strip()
