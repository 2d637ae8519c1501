"""Who is calling: tenants from API keys (config), and the admin bearer token."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from services.gateway.errors import Unauthorized


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class TenantDirectory:
    """API key → tenant. Keys are held as SHA-256 digests only; a tenant never comes from
    anything the client says about itself (no client-supplied salt or tenant header)."""

    __slots__ = ("_by_hash",)

    def __init__(self, tenants_by_key_hash: Mapping[str, str]) -> None:
        self._by_hash = dict(tenants_by_key_hash)

    def tenant(self, authorization: str | None) -> str:
        return self.identify(authorization)[0]

    def identify(self, authorization: str | None) -> tuple[str, str]:
        """(tenant, the key's digest): the digest names the client in per-key limits."""
        key = bearer(authorization)
        if key is None:
            raise Unauthorized("missing API key: send 'Authorization: Bearer <key>'")
        digest = hashlib.sha256(key.encode()).hexdigest()
        tenant = self._by_hash.get(digest)
        if tenant is None:
            raise Unauthorized("invalid API key")
        return tenant, digest[:32]


class AdminGuard:
    __slots__ = ("_token",)

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    def check(self, authorization: str | None) -> None:
        presented = bearer(authorization)
        # Constant-time compare: response time says nothing about how much matched.
        if presented is None or not hmac.compare_digest(presented.encode(), self._token):
            raise Unauthorized("admin API needs 'Authorization: Bearer <admin token>'")
