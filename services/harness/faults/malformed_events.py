"""Hypothesis strategies for spec-update records: valid ones, and malformed ones that
say which DLQ ``reason`` the worker must give them.

Each malformed record is built from a valid document by one mutation of a known class,
so its expected reason follows from the construction, not from the code under test:

==================  ===============================================  ====================
kind                mutation                                         expected reason
==================  ===============================================  ====================
wrong_type          an attribute replaced by a value of another type schema_violation
missing_field       a required attribute (or data field) removed     schema_violation
huge_payload        an extension attribute pads it past the limit    oversized
too_many_fields     changed_fields longer than the schema allows     schema_violation
invalid_utf8        invalid byte sequences spliced into the bytes    not_utf8
wrong_specversion   specversion other than "1.0"                     schema_violation
unknown_field       an unknown data field, or a badly named attribute schema_violation
bad_value           a value outside its pattern or range             schema_violation
not_json            truncated JSON or arbitrary text                 not_json (or schema)
not_an_object       JSON that is not an object                       schema_violation
key_mismatch        Kafka key or subject ≠ data.product_id           key_mismatch
impossible_time     ``time`` fits the pattern, is no real instant    schema_violation
hostile_id          an id with NUL / control characters, or a        schema_violation,
                    lone surrogate escape                            not_utf8 (surrogate)
==================  ===============================================  ====================

``KNOWN_BUG_*`` used to hold classes that broke the worker (docs/faults.md, "Known bugs");
all of them are fixed and part of every run now.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from services.core.errors import InvalidReason
from services.core.events import CLOUDEVENTS_SPECVERSION, DEFAULT_MAX_EVENT_BYTES, EVENT_TYPE

Document = dict[str, Any]

KNOWN_BUG_MALFORMED: frozenset[str] = frozenset()
KNOWN_BUG_VALID: frozenset[str] = frozenset()

_PRODUCT = r"[a-z0-9][a-z0-9_.-]{0,24}"
_FIELD = r"[a-z][a-z0-9_]{0,15}(\.[A-Za-z0-9_+-]{1,10}){0,2}"
_TOP_LEVEL = frozenset(
    {"specversion", "id", "source", "type", "time", "subject", "datacontenttype", "dataschema"}
)
_DATA_FIELDS = frozenset({"product_id", "spec_version", "changed_fields", "tenant"})
_REQUIRED = ("specversion", "id", "source", "type", "time", "subject", "data")
_REQUIRED_DATA = ("product_id", "spec_version", "changed_fields")


@dataclass(frozen=True, slots=True)
class FuzzRecord:
    """One Kafka record to publish, and what the worker must do with it."""

    kind: str
    key: bytes | None
    value: bytes
    expected_reason: InvalidReason | None  # None: a valid event, to be applied
    event_id: str | None = None

    @property
    def valid(self) -> bool:
        return self.expected_reason is None

    def with_unique_id(self, n: int) -> FuzzRecord:
        """A valid record whose id cannot collide with another's (ids dedupe)."""
        doc = json.loads(self.value)
        doc["id"] = f"{doc['id'][:100]}#{n}"
        return replace(self, value=_encode(doc), event_id=doc["id"])


def _encode(doc: Any) -> bytes:
    # ensure_ascii: lone surrogates travel as \\ud800 escapes (valid UTF-8, valid JSON)
    return json.dumps(doc, separators=(",", ":")).encode()


# -- valid documents ---------------------------------------------------------------------

_offsets = st.integers(-(23 * 60 + 59), 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))


@st.composite
def event_times(draw: st.DrawFn) -> str:
    """RFC 3339 with an offset or Z, 0–9 fractional digits: every form the schema allows."""
    instant = draw(
        st.datetimes(min_value=datetime(1971, 1, 2), max_value=datetime(2200, 12, 30))
    ).replace(tzinfo=UTC)
    local = instant.astimezone(draw(_offsets))
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    digits = draw(st.integers(0, 9))
    if digits:
        text += "." + f"{local.microsecond:06d}{draw(st.integers(0, 999)):03d}"[:digits]
    if local.utcoffset() == timedelta(0) and draw(st.booleans()):
        return text + "Z"
    return text + local.strftime("%z")[:3] + ":" + local.strftime("%z")[3:]


_safe_ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=64
)
_hostile_ids = st.builds(
    lambda a, bad, b: a + bad + b,
    st.text(max_size=10),
    st.sampled_from(["\x00", "\ud800", "\udfff", "a\x00b"]),
    st.text(max_size=10),
)
_extension_names = st.from_regex(r"[a-z0-9]{1,20}", fullmatch=True).filter(
    lambda n: n not in _TOP_LEVEL and n != "data"
)
_json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=20)
)


@st.composite
def valid_documents(draw: st.DrawFn) -> Document:
    product = draw(st.from_regex(_PRODUCT, fullmatch=True))
    data: Document = {
        "product_id": product,
        "spec_version": draw(st.integers(1, 2**31 - 1)),
        "changed_fields": draw(
            st.lists(st.from_regex(_FIELD, fullmatch=True), min_size=1, max_size=8)
        ),
    }
    if draw(st.booleans()):
        data["tenant"] = draw(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True))
    doc: Document = {
        "specversion": CLOUDEVENTS_SPECVERSION,
        "id": draw(_safe_ids),
        "source": draw(_safe_ids),
        "type": EVENT_TYPE,
        "time": draw(event_times()),
        "subject": product,
        "data": data,
    }
    if draw(st.booleans()):
        doc["datacontenttype"] = "application/json"
    for name, value in draw(st.dictionaries(_extension_names, _json_scalars, max_size=3)).items():
        doc[name] = value  # CloudEvents extension attributes are allowed
    return doc


@st.composite
def valid_records(draw: st.DrawFn, *, include_known_bugs: bool = False) -> FuzzRecord:
    kinds = ["valid", "valid_unkeyed", "valid_huge_spec_version"]
    if include_known_bugs:
        kinds += sorted(KNOWN_BUG_VALID)
    kind = draw(st.sampled_from(kinds))
    doc = draw(valid_documents())
    if kind == "valid_huge_spec_version":
        doc["data"]["spec_version"] = draw(st.integers(2**31, 2**53 - 1))
    key = None if kind == "valid_unkeyed" else doc["subject"].encode()
    return FuzzRecord(kind, key, _encode(doc), None, event_id=doc["id"])


# -- malformed records -------------------------------------------------------------------

_not_integer = st.one_of(
    st.text(max_size=10),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
)
_not_string = st.one_of(
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_not_array = st.one_of(st.text(max_size=10), st.integers(), st.none(), st.booleans())
_not_object = st.one_of(
    st.text(max_size=10), st.integers(), st.none(), st.lists(st.integers(), max_size=3)
)
_WRONG_TYPES: dict[str, st.SearchStrategy[Any]] = {
    "id": _not_string,
    "source": _not_string,
    "time": _not_string,
    "subject": _not_string,
    "specversion": _not_string,
    "type": _not_string,
    "data": _not_object,
    "data.product_id": _not_string,
    "data.spec_version": _not_integer,
    "data.changed_fields": _not_array,
    "data.tenant": _not_string,
}


def _copy(doc: Document) -> Document:
    out: Document = json.loads(json.dumps(doc))
    return out


def _set(doc: Document, path: str, value: Any) -> Document:
    out = _copy(doc)
    *parents, leaf = path.split(".")
    target = out
    for part in parents:
        target = target[part]
    target[leaf] = value
    return out


def _delete(doc: Document, path: str) -> Document:
    out = _copy(doc)
    *parents, leaf = path.split(".")
    target = out
    for part in parents:
        target = target[part]
    del target[leaf]
    return out


def _keyed(kind: str, doc: Any, reason: InvalidReason) -> FuzzRecord:
    key = doc.get("subject") if isinstance(doc, dict) else None
    return FuzzRecord(kind, key.encode() if isinstance(key, str) else None, _encode(doc), reason)


@st.composite
def _wrong_type(draw: st.DrawFn) -> FuzzRecord:
    path = draw(st.sampled_from(sorted(_WRONG_TYPES)))
    doc = _set(draw(valid_documents()), path, draw(_WRONG_TYPES[path]))
    return _keyed("wrong_type", doc, InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _missing_field(draw: st.DrawFn) -> FuzzRecord:
    paths = [*_REQUIRED, *(f"data.{f}" for f in _REQUIRED_DATA)]
    doc = _delete(draw(valid_documents()), draw(st.sampled_from(paths)))
    return _keyed("missing_field", doc, InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _huge_payload(draw: st.DrawFn) -> FuzzRecord:
    # The size is drawn, the filler repeated: hypothesis cannot draw 64 KiB strings.
    size = draw(st.integers(DEFAULT_MAX_EVENT_BYTES + 1, DEFAULT_MAX_EVENT_BYTES + 40_000))
    unit = draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8))
    doc = draw(valid_documents())
    doc["padding"] = (unit * (size // len(unit) + 1))[:size]
    return _keyed("huge_payload", doc, InvalidReason.OVERSIZED)


@st.composite
def _too_many_fields(draw: st.DrawFn) -> FuzzRecord:
    count = draw(st.integers(257, 600))
    stem = draw(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True))
    doc = _set(draw(valid_documents()), "data.changed_fields", [stem] * count)
    return _keyed("too_many_fields", doc, InvalidReason.SCHEMA_VIOLATION)


_BAD_UTF8 = (b"\xff", b"\xfe", b"\xc3\x28", b"\xa0\xa1", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88")


@st.composite
def _invalid_utf8(draw: st.DrawFn) -> FuzzRecord:
    value = _encode(draw(valid_documents()))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(value)))
        value = value[:at] + draw(st.sampled_from(_BAD_UTF8)) + value[at:]
    return FuzzRecord("invalid_utf8", None, value, InvalidReason.NOT_UTF8)


@st.composite
def _wrong_specversion(draw: st.DrawFn) -> FuzzRecord:
    version = draw(
        st.one_of(
            st.sampled_from(["0.3", "1.1", "2.0", "1", "1.0 ", " 1.0", "v1.0", "1.0.0", ""]),
            st.text(max_size=6).filter(lambda v: v != CLOUDEVENTS_SPECVERSION),
            st.sampled_from([1.0, 1, 0.3]),
        )
    )
    doc = _set(draw(valid_documents()), "specversion", version)
    return _keyed("wrong_specversion", doc, InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _unknown_field(draw: st.DrawFn) -> FuzzRecord:
    doc = _copy(draw(valid_documents()))
    if draw(st.booleans()):
        name = draw(st.text(min_size=1, max_size=20).filter(lambda n: n not in _DATA_FIELDS))
        doc["data"][name] = draw(_json_scalars)  # data allows no other fields
    else:
        name = draw(
            st.one_of(
                st.from_regex(r"[A-Z_][A-Za-z0-9_]{0,10}", fullmatch=True),
                st.from_regex(r"[a-z0-9]{21,30}", fullmatch=True),
                st.text(min_size=1, max_size=8).filter(lambda n: not n.isascii()),
            )
        )
        doc[name] = draw(_json_scalars)
    return _keyed("unknown_field", doc, InvalidReason.SCHEMA_VIOLATION)


_BAD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "data.product_id": st.one_of(
        st.from_regex(r"[A-Z][a-z0-9 ]{0,10}", fullmatch=True),
        st.from_regex(r"[a-z]{65,80}", fullmatch=True),
        st.just(""),
    ),
    "data.spec_version": st.one_of(st.integers(max_value=0), st.integers(min_value=2**53)),
    "data.changed_fields": st.one_of(
        st.just([]),
        st.lists(st.from_regex(r"[A-Z0-9 ][^\n]{0,10}", fullmatch=True), min_size=1, max_size=3),
    ),
    "data.tenant": st.from_regex(r"[A-Z_ ][a-z]{0,5}", fullmatch=True),
    "time": st.one_of(
        st.sampled_from(["yesterday", "2024-01-01", "2024-01-01 10:00:00Z", "1700000000", ""]),
        st.from_regex(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", fullmatch=True),  # no offset
    ),
    "type": st.text(max_size=30).filter(lambda t: t != EVENT_TYPE),
    "id": st.just(""),
    "datacontenttype": st.sampled_from(["text/plain", "application/xml", ""]),
}


@st.composite
def _bad_value(draw: st.DrawFn) -> FuzzRecord:
    path = draw(st.sampled_from(sorted(_BAD_VALUES)))
    doc = draw(valid_documents())
    value = draw(_BAD_VALUES[path])
    doc = _set(doc, path, value)
    if path == "data.product_id":
        doc["subject"] = value  # keep key and subject consistent: only the pattern is wrong
    return _keyed("bad_value", doc, InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _not_json(draw: st.DrawFn) -> FuzzRecord:
    if draw(st.booleans()):
        full = _encode(draw(valid_documents()))
        value = full[: draw(st.integers(0, len(full) - 1))]  # a prefix of an object never parses
        return FuzzRecord("not_json", None, value, InvalidReason.NOT_JSON)
    text = draw(st.text(max_size=40))
    raw = text.encode("utf-8", "surrogatepass")
    try:
        json.loads(text)
    except ValueError:
        return FuzzRecord("not_json", None, raw, _text_reason(text, InvalidReason.NOT_JSON))
    return FuzzRecord("not_json", None, raw, _text_reason(text, InvalidReason.SCHEMA_VIOLATION))


def _text_reason(text: str, otherwise: InvalidReason) -> InvalidReason:
    # Text with a lone surrogate encodes to bytes that are not UTF-8 at all.
    try:
        text.encode()
    except UnicodeEncodeError:
        return InvalidReason.NOT_UTF8
    return otherwise


@st.composite
def _not_an_object(draw: st.DrawFn) -> FuzzRecord:
    value = draw(
        st.one_of(
            st.lists(_json_scalars, max_size=3),
            _json_scalars,
            st.builds(lambda d: [d], valid_documents()),
        )
    )
    return FuzzRecord("not_an_object", None, _encode(value), InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _key_mismatch(draw: st.DrawFn) -> FuzzRecord:
    doc = draw(valid_documents())
    other = draw(st.from_regex(_PRODUCT, fullmatch=True).filter(lambda p: p != doc["subject"]))
    if draw(st.booleans()):
        return FuzzRecord("key_mismatch", other.encode(), _encode(doc), InvalidReason.KEY_MISMATCH)
    doc["subject"] = other
    return FuzzRecord(
        "key_mismatch", doc["data"]["product_id"].encode(), _encode(doc), InvalidReason.KEY_MISMATCH
    )


@st.composite
def _impossible_time(draw: st.DrawFn) -> FuzzRecord:
    """Matches the schema's ``time`` pattern, but no such date or offset exists."""
    day, clock = r"[0-9]{2}", r"[0-9]{2}:[0-9]{2}:[0-9]{2}"
    text = draw(
        st.one_of(
            st.from_regex(rf"20[0-9]{{2}}-(1[3-9]|[2-9][0-9])-{day}T{clock}Z", fullmatch=True),
            st.from_regex(rf"20[0-9]{{2}}-0[1-9]-(3[2-9]|[4-9][0-9])T{clock}Z", fullmatch=True),
            st.from_regex(
                r"20[0-9]{2}-0[1-9]-1[0-9]T(2[4-9]|[3-9][0-9]):[0-9]{2}:[0-9]{2}Z", fullmatch=True
            ),
            st.from_regex(
                r"20[0-9]{2}-0[1-9]-1[0-9]T10:00:00[+-](2[4-9]|[3-9][0-9]):[0-9]{2}", fullmatch=True
            ),
            st.just("0000-01-01T00:00:00Z"),
        )
    )
    doc = _set(draw(valid_documents()), "time", text)
    return _keyed("impossible_time", doc, InvalidReason.SCHEMA_VIOLATION)


@st.composite
def _hostile_id(draw: st.DrawFn) -> FuzzRecord:
    """An id that no key or database column can hold as text."""
    event_id = draw(_hostile_ids)
    doc = _set(draw(valid_documents()), "id", event_id)
    surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in event_id)
    reason = InvalidReason.NOT_UTF8 if surrogate else InvalidReason.SCHEMA_VIOLATION
    return _keyed("hostile_id", doc, reason)


MALFORMED_KINDS: dict[str, Callable[[], st.SearchStrategy[FuzzRecord]]] = {
    "wrong_type": _wrong_type,
    "missing_field": _missing_field,
    "huge_payload": _huge_payload,
    "too_many_fields": _too_many_fields,
    "invalid_utf8": _invalid_utf8,
    "wrong_specversion": _wrong_specversion,
    "unknown_field": _unknown_field,
    "bad_value": _bad_value,
    "not_json": _not_json,
    "not_an_object": _not_an_object,
    "key_mismatch": _key_mismatch,
    "impossible_time": _impossible_time,
    "hostile_id": _hostile_id,
}


def malformed_records(*, include_known_bugs: bool = False) -> st.SearchStrategy[FuzzRecord]:
    kinds = [
        make()
        for kind, make in sorted(MALFORMED_KINDS.items())
        if include_known_bugs or kind not in KNOWN_BUG_MALFORMED
    ]
    return st.one_of(*kinds)


def draw_examples(
    strategy: st.SearchStrategy[FuzzRecord], count: int, at_seed: int
) -> list[FuzzRecord]:
    """``count`` examples of ``strategy`` from hypothesis's generator (no shrinking)."""
    examples: list[FuzzRecord] = []

    @seed(at_seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(record: FuzzRecord) -> None:
        examples.append(record)

    collect()
    return examples
