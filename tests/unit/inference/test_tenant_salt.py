"""cache_salt: set from the authenticated tenant, client-supplied salts stripped."""

from __future__ import annotations

import pytest

from services.core.prompt import (
    CACHE_SALT_FIELD,
    InvalidSaltKeyError,
    MissingTenantError,
    apply_tenant_salt,
    derive_cache_salt,
)

KEY = b"test-salt-key"


def test_client_salt_is_replaced_by_the_tenant_salt() -> None:
    body = {"model": "m", "messages": [], "cache_salt": "tenant-b-salt-guess"}
    salted = apply_tenant_salt(body, "tenant-a", salt_key=KEY)
    assert salted[CACHE_SALT_FIELD] == derive_cache_salt("tenant-a", KEY)
    assert salted[CACHE_SALT_FIELD] != "tenant-b-salt-guess"
    assert body["cache_salt"] == "tenant-b-salt-guess"  # input not mutated
    assert {k: v for k, v in salted.items() if k != CACHE_SALT_FIELD} == {
        "model": "m",
        "messages": [],
    }


def test_salt_is_added_when_the_client_sent_none() -> None:
    assert CACHE_SALT_FIELD in apply_tenant_salt({"model": "m"}, "t", salt_key=KEY)


def test_salts_are_per_tenant_stable_and_keyed() -> None:
    assert derive_cache_salt("a", KEY) == derive_cache_salt("a", KEY)
    assert derive_cache_salt("a", KEY) != derive_cache_salt("b", KEY)
    assert derive_cache_salt("a", KEY) != derive_cache_salt("a", b"another-key")
    salt = derive_cache_salt("acme-corp", KEY)
    assert "acme" not in salt and len(salt) == 64  # HMAC-SHA256 hex: reveals nothing


def test_no_tenant_or_no_key_is_refused() -> None:
    with pytest.raises(MissingTenantError):
        apply_tenant_salt({"model": "m"}, "", salt_key=KEY)
    with pytest.raises(InvalidSaltKeyError):
        apply_tenant_salt({"model": "m"}, "t", salt_key=b"")
