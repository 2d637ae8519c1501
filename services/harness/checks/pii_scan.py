"""Find personal values in stored bytes (Redis dumps, AOF files, SQL rows, logs).

One Aho-Corasick automaton holds every value sent, in every form it could be stored in:

- ``normalised``: the value's search form (NFKC, lower case, no separators), looked for
  in the same normalisation of the haystack, so ``138 1234 5678``, ``138-1234-5678``,
  ``+86 13812345678`` and full-width digits are all found as ``13812345678``;
- ``sha256``, ``sha1``, ``md5``: hex digests of the search form (an unsalted hash of a
  phone number is as good as the number: the space is small enough to enumerate).

Each haystack is also looked at with escapes undone (JSON ``\\uXXXX``, Python ``\\xHH``
byte escapes, URL ``%XX``), so a value written by ``json.dumps`` or ``repr`` is still
found. The scan reports which values were found and in which form, never the values:
the report carries counts per kind and source only.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

import ahocorasick

from services.core.redaction import PiiKind
from services.harness.checks.personal_data import SEPARATORS, PersonalValue

#: Scan large inputs in chunks this big, overlapping by more than any pattern is long.
CHUNK_BYTES = 4 * 1024 * 1024
CHUNK_OVERLAP = 4096

_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_BYTE_ESCAPES = re.compile(r"(?:\\x[0-9a-fA-F]{2})+")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")


class StoredForm(StrEnum):
    NORMALISED = "normalised"
    SHA256 = "sha256"
    SHA1 = "sha1"
    MD5 = "md5"


@dataclass(frozen=True, slots=True, order=True)
class Sighting:
    """Value number ``value`` of the scanner's list, found in ``form``."""

    value: int
    form: StoredForm


@dataclass(frozen=True, slots=True)
class SourceScan:
    source: str
    bytes_scanned: int
    sightings: frozenset[Sighting]


def _normalise(text: str) -> str:
    return SEPARATORS.sub("", unicodedata.normalize("NFKC", text).lower())


def _unescape_unicode(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        return chr(int(match[1], 16))

    decoded = _UNICODE_ESCAPE.sub(replace, text)
    # Surrogate pairs (\ud83d\ude00) come out as two lone surrogates: join them.
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _unescape_bytes(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        raw = bytes(int(h, 16) for h in match[0].split("\\x")[1:])
        return raw.decode("utf-8", "replace")

    return _BYTE_ESCAPES.sub(replace, text)


def views(text: str) -> Iterator[str]:
    """The text as written, and with each kind of escape undone (only when present)."""
    yield text
    if "\\u" in text:
        yield _unescape_unicode(text)
    if "\\x" in text:
        yield _unescape_bytes(text)
    if _PERCENT.search(text) is not None:
        yield urllib.parse.unquote(text, errors="replace")


class PersonalDataScanner:
    """Looks for every form of every value in one pass per view."""

    def __init__(self, values: Sequence[PersonalValue]) -> None:
        self.values = tuple(values)
        self._automaton = ahocorasick.Automaton()
        patterns: dict[str, list[Sighting]] = {}
        for index, value in enumerate(self.values):
            canonical = value.canonical
            if len(canonical) < 3:
                raise ValueError(f"a {value.kind.value} value is too short to look for")
            digest_input = canonical.encode()
            forms = {
                canonical: StoredForm.NORMALISED,
                hashlib.sha256(digest_input).hexdigest(): StoredForm.SHA256,
                hashlib.sha1(digest_input, usedforsecurity=False).hexdigest(): StoredForm.SHA1,
                hashlib.md5(digest_input, usedforsecurity=False).hexdigest(): StoredForm.MD5,
            }
            for pattern, form in forms.items():
                patterns.setdefault(pattern, []).append(Sighting(index, form))
        for pattern, sightings in patterns.items():
            self._automaton.add_word(pattern, tuple(sightings))
        self._automaton.make_automaton()

    def find(self, text: str) -> set[Sighting]:
        found: set[Sighting] = set()
        for view in views(text):
            for _, sightings in self._automaton.iter(_normalise(view)):
                found.update(sightings)
        return found

    def scan(self, source: str, data: bytes | str) -> SourceScan:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        found: set[Sighting] = set()
        for chunk in _chunks(raw):
            found |= self.find(chunk.decode("utf-8", "replace"))
        return SourceScan(source, len(raw), frozenset(found))

    def kind_of(self, sighting: Sighting) -> PiiKind:
        return self.values[sighting.value].kind


def _chunks(data: bytes) -> Iterable[bytes]:
    if len(data) <= CHUNK_BYTES:
        yield data
        return
    start = 0
    while start < len(data):
        yield data[start : start + CHUNK_BYTES + CHUNK_OVERLAP]
        start += CHUNK_BYTES
