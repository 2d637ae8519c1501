"""Software versions a question names that are newer than the catalog's.

An attribute whose ``attributes.json`` description sends questions about its future
updates to the predict intent (the operating system a product ships with) has a value at
launch; a question naming a version of that software above the catalog's value ("s24 one
ui 7", "AW S9 watchOS 12") asks about an update that has not come with the product, not
about the spec. The versions are read from the catalog's own values, never listed here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: A software family word and its version in a spec text: "One UI 6.1 (Android 14)"
#: gives ("one ui", 6.1) and ("android", 14).
_FAMILY_VERSION = re.compile(r"([^\W\d_][^\W\d_ ]*(?: [^\W\d_]+)*?)\s*(\d+(?:\.\d+)*)(?![\d.])")
_VERSION = re.compile(r"(\d+(?:\.\d+)*)\s*$")


def versioned_attributes(attributes: Mapping[str, Any]) -> frozenset[str]:
    """Spec attributes whose description sends questions about future updates to
    ``predict`` (a software version, not a date)."""
    return frozenset(
        str(attr_id)
        for attr_id, raw in attributes.get("attributes", {}).items()
        if raw.get("kind") == "spec"
        and "predict" in (description := str(raw.get("description", "")).lower())
        and "update" in description
    )


def _key(family: str) -> str:
    return re.sub(r"\s+", "", family).lower()


def _number(text: str) -> tuple[int, ...]:
    """A version as numbers, trailing zeros dropped (HarmonyOS 4.0 is HarmonyOS 4)."""
    parts = [int(part) for part in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class LaunchVersions:
    """The software versions one product's spec values give, by family."""

    versions: Mapping[str, tuple[int, ...]]

    @classmethod
    def of(cls, texts: Iterable[str]) -> LaunchVersions:
        found: dict[str, tuple[int, ...]] = {}
        for text in texts:
            for match in _FAMILY_VERSION.finditer(text):
                words = match.group(1).split()
                # "(Android 14)": the family is the word run right before the number.
                found[_key(" ".join(words[-2:]))] = _number(match.group(2))
                found.setdefault(_key(words[-1]), _number(match.group(2)))
        return cls(found)

    def newer(self, stated: str) -> bool:
        """Whether ``stated`` ("one ui 7", "鸿蒙5") names a version above the launch one:
        of the same family or, when the stated family is written otherwise (鸿蒙 for
        HarmonyOS), of the product's only versioned family."""
        match = _VERSION.search(stated)
        if match is None or not self.versions:
            return False
        version = _number(match.group(1))
        family = _key(stated[: match.start()])
        if not family:
            return False
        if family in self.versions:
            return version > self.versions[family]
        launched = set(self.versions.values())
        return len(launched) == 1 and version > next(iter(launched))


def newer_versions(
    text: str, patterns: Sequence[re.Pattern[str]], launch: LaunchVersions
) -> list[str]:
    """The version mentions of ``text`` (found by the attribute's value patterns) newer
    than the product's launch versions."""
    return [
        match.group(0)
        for pattern in patterns
        for match in pattern.finditer(text)
        if launch.newer(match.group(0))
    ]
