"""The stored form of a cached answer: a generation snapshot, then the body.

``<field> <generation> <field> <generation> ...\\n<body>``

The header is what the Lua scripts read: a lookup serves the body only if every
field's current generation still equals the stored one; a guarded fill writes only if
they are equal at write time. The body is opaque here (the gateway stores JSON).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Generations of one product's tags, read *before* the facts were read."""

    product: str
    generations: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, product: str, pairs: Iterable[tuple[str, str | int]]) -> Snapshot:
        return cls(product, tuple(sorted((f, str(g)) for f, g in pairs)))

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(f for f, _ in self.generations)

    def as_dict(self) -> Mapping[str, str]:
        return dict(self.generations)

    def header(self) -> bytes:
        return " ".join(f"{f} {g}" for f, g in self.generations).encode()


def encode_entry(snapshot: Snapshot, body: bytes) -> bytes:
    if not snapshot.generations:
        raise ValueError("an entry without tags could never be invalidated")
    return snapshot.header() + b"\n" + body


def decode_entry(product: str, value: bytes) -> tuple[Snapshot, bytes]:
    header, sep, body = value.partition(b"\n")
    if not sep:
        raise ValueError("entry has no header")
    parts = header.decode().split()
    pairs = list(zip(parts[0::2], parts[1::2], strict=True))
    return Snapshot.of(product, pairs), body
