"""Generated personal data is valid, and the scanner finds it however it is written."""

from __future__ import annotations

import hashlib
import json
import random
import urllib.parse

import phonenumbers
import pytest
from stdnum import luhn
from stdnum.cn import ric

from services.core.redaction import PiiKind
from services.harness.checks.personal_data import (
    GENERATED_KINDS,
    PersonalDataFactory,
    PersonalValue,
    phrase_with,
)
from services.harness.checks.pii_scan import CHUNK_BYTES, PersonalDataScanner, StoredForm


@pytest.fixture(scope="module")
def values() -> list[PersonalValue]:
    factory = PersonalDataFactory(1)
    return [factory.of_kind(kind) for kind in GENERATED_KINDS for _ in range(60)]


def test_values_are_valid_and_distinct(values: list[PersonalValue]) -> None:
    assert len({v.canonical for v in values}) == len(values)
    for value in values:
        digits = "".join(c for c in value.canonical if c.isdigit() or c == "x")
        if value.kind is PiiKind.CN_ID:
            assert ric.is_valid(value.canonical.upper())
        elif value.kind is PiiKind.BANK_CARD:
            assert luhn.is_valid(digits) and len(digits) in (16, 19)
        elif value.kind in (PiiKind.CN_MOBILE, PiiKind.CN_LANDLINE):
            national = digits[2:] if digits.startswith("86") and len(digits) > 12 else digits
            assert phonenumbers.is_valid_number(phonenumbers.parse(national, "CN"))
        elif value.kind is PiiKind.EMAIL:
            assert "@" in value.canonical
        else:
            assert len(value.text) == 3


def test_names_in_the_excluded_text_are_never_drawn() -> None:
    everything = "".join(PersonalDataFactory(2).person().text for _ in range(50))
    factory = PersonalDataFactory(2, excluded_text=everything)
    assert all(factory.person().text not in everything for _ in range(50))


def test_every_form_is_found(values: list[PersonalValue]) -> None:
    scanner = PersonalDataScanner(values)
    chooser = random.Random(3)
    for index, value in enumerate(values):
        sentence = phrase_with(value, "iPhone 15 多重", chooser)
        digest = hashlib.sha256(value.canonical.encode()).hexdigest()
        for haystack, form in (
            (sentence, StoredForm.NORMALISED),
            (json.dumps(sentence), StoredForm.NORMALISED),  # \\uXXXX escapes
            (repr(sentence.encode()), StoredForm.NORMALISED),  # \\xHH escapes
            (urllib.parse.quote(sentence), StoredForm.NORMALISED),
            (value.canonical.upper(), StoredForm.NORMALISED),
            (f"key:{digest}", StoredForm.SHA256),
        ):
            found = scanner.find(haystack)
            assert any(s.value == index and s.form is form for s in found), (value.kind, form)


def test_nothing_is_found_where_nothing_was_written(values: list[PersonalValue]) -> None:
    scanner = PersonalDataScanner(values)
    assert not scanner.find("iPhone 15 的电池 3349 mAh，重量 171 g，订单 2024-05-01 12:00")


def test_a_value_across_a_chunk_boundary_is_found(values: list[PersonalValue]) -> None:
    scanner = PersonalDataScanner(values[:1])
    text = values[0].canonical.encode()
    data = b"x" * (CHUNK_BYTES - len(text) // 2) + text + b"x" * 100
    assert scanner.scan("big", data).sightings
