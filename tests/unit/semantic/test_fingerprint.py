from __future__ import annotations

import hashlib

import pytest

from services.core.semantic.fingerprint import Bypass, Fingerprint


def test_cid_matches_the_labelled_format() -> None:
    fp = Fingerprint("iphone_15", "price", "query_spec", (("storage", "256GB"),))
    assert fp.cid == "iphone_15|price|storage=256GB"
    store = Fingerprint(None, "invoice", "query_policy", ())
    assert store.cid == "null|invoice|"


def test_key_is_sha256_of_a_versioned_canonical_form() -> None:
    fp = Fingerprint("iphone_15", "price", "query_spec", ())
    assert fp.canonical == "fp1|query_spec|iphone_15|price|"
    assert fp.key == hashlib.sha256(b"fp1|query_spec|iphone_15|price|").hexdigest()


def test_constraints_change_the_key() -> None:
    bare = Fingerprint("iphone_15", "price", "query_spec", ())
    sized = Fingerprint("iphone_15", "price", "query_spec", (("storage", "256GB"),))
    assert bare.key != sized.key


def test_unsorted_or_repeated_constraints_are_refused() -> None:
    with pytest.raises(ValueError, match="sorted"):
        Fingerprint("x", "a", "query_spec", (("z", "1"), ("a", "2")))
    with pytest.raises(ValueError, match="once"):
        Fingerprint("x", "a", "query_spec", (("a", "1"), ("a", "2")))


def test_intents_are_checked() -> None:
    with pytest.raises(ValueError):
        Fingerprint("x", "a", "compare", ())
    with pytest.raises(ValueError):
        Bypass("query_spec", "not a bypass")


def test_fingerprints_are_frozen() -> None:
    fp = Fingerprint("iphone_15", "price", "query_spec", ())
    with pytest.raises(AttributeError):
        fp.product = "iphone_16"  # type: ignore[misc]
