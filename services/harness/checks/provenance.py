"""Whose upstream call every served answer came from (the isolation check's evidence).

The engine gives every upstream call a unique completion id, and the gateway serves
cached answers byte for byte, so a served answer names the call that produced it. The
call's *owner* is the tenant whose non-hit response (its own miss, stale refill or
bypass) first carried the id; without one, the tenant whose salt the call carried. A
response whose answer another tenant owns is a cross-tenant hit, whatever ``X-Cache``
says. Witnesses beside it: every call must carry its owner's salt (the ledger), every
answer must come from a recorded call, and no ``X-Cache-Key`` digest may reach two
tenants.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.harness.checks.tenant_traffic import Outcome
from services.harness.checks.upstream_ledger import LedgerLine


@dataclass(frozen=True, slots=True)
class Provenance:
    answers: int
    cross_tenant_hits: int
    cross_tenant_by_cache_state: dict[str, int]
    hits_on_own_entries: int
    unattributed_answers: int
    upstream_calls: int
    #: Calls the ledger could not complete or the engine answered with a 5xx.
    upstream_failures: int
    upstream_calls_with_foreign_salt: int
    upstream_calls_with_unknown_salt: int
    cache_keys_seen_by_several_tenants: int
    questions_hit_by_several_tenants: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "answers_checked": self.answers,
            "cross_tenant_hits": self.cross_tenant_hits,
            "cross_tenant_by_cache_state": self.cross_tenant_by_cache_state,
            "hits_on_own_tenant_entries": self.hits_on_own_entries,
            "unattributed_answers": self.unattributed_answers,
            "upstream_calls": self.upstream_calls,
            "upstream_failures": self.upstream_failures,
            "upstream_calls_with_foreign_salt": self.upstream_calls_with_foreign_salt,
            "upstream_calls_with_unknown_salt": self.upstream_calls_with_unknown_salt,
            "cache_keys_seen_by_several_tenants": self.cache_keys_seen_by_several_tenants,
            "questions_hit_by_several_tenants": self.questions_hit_by_several_tenants,
        }


def attribute_answers(
    outcomes: Sequence[Outcome],
    tenants: Sequence[str],
    ledger: Sequence[LedgerLine],
    salt_owners: Mapping[str, str],
) -> Provenance:
    """Whose upstream call every served answer came from (see the module doc)."""
    owner: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.completion_id and outcome.state not in ("HIT", ""):
            owner.setdefault(outcome.completion_id, outcome.tenant)
    tenant_index = {name: index for index, name in enumerate(tenants)}
    #: completion id → the tenant whose salt the upstream call carried (None: unknown salt)
    salt_tenant: dict[str, int | None] = {}
    for line in ledger:
        if line.completion_id is not None:
            named = salt_owners.get(line.salt_tag) if line.salt_tag is not None else None
            salt_tenant[line.completion_id] = tenant_index[named] if named else None
    unknown_salt = sum(1 for tenant in salt_tenant.values() if tenant is None)
    for call_id, tenant in salt_tenant.items():
        if tenant is not None:
            owner.setdefault(call_id, tenant)
    foreign_salt = sum(
        1
        for call_id, tenant in salt_tenant.items()
        if tenant is not None and owner[call_id] != tenant
    )
    answers = cross = own_hits = unattributed = 0
    cross_states: Counter[str] = Counter()
    key_tenants: dict[str, set[int]] = defaultdict(set)
    slot_hitters: dict[str, set[int]] = defaultdict(set)
    for outcome in outcomes:
        if outcome.cache_key:
            key_tenants[outcome.cache_key.rsplit(":", 1)[-1]].add(outcome.tenant)
        if outcome.completion_id is None:
            continue
        answers += 1
        made_for = owner.get(outcome.completion_id)
        if made_for is None or outcome.completion_id not in salt_tenant:
            unattributed += 1
        if made_for is not None and made_for != outcome.tenant:
            cross += 1
            cross_states[outcome.state or "error"] += 1
        elif made_for == outcome.tenant and outcome.state == "HIT":
            own_hits += 1
            slot_hitters[outcome.slot].add(outcome.tenant)
    return Provenance(
        answers=answers,
        cross_tenant_hits=cross,
        cross_tenant_by_cache_state=dict(cross_states),
        hits_on_own_entries=own_hits,
        unattributed_answers=unattributed,
        upstream_calls=sum(1 for line in ledger if line.completion_id is not None),
        upstream_failures=sum(1 for line in ledger if line.status >= 500),
        upstream_calls_with_foreign_salt=foreign_salt,
        upstream_calls_with_unknown_salt=unknown_salt,
        cache_keys_seen_by_several_tenants=sum(1 for t in key_tenants.values() if len(t) > 1),
        questions_hit_by_several_tenants=sum(1 for t in slot_hitters.values() if len(t) > 1),
    )


def per_tenant_figures(outcomes: Sequence[Outcome], tenants: Sequence[str]) -> dict[str, Any]:
    figures: dict[str, Counter[str]] = {name: Counter() for name in tenants}
    for outcome in outcomes:
        counts = figures[tenants[outcome.tenant]]
        counts["requests"] += 1
        if outcome.status != 200:
            counts[f"status_{outcome.status}"] += 1
        elif outcome.cache.startswith("HIT"):
            counts["hits_" + outcome.cache.rsplit("=", 1)[-1]] += 1
        else:
            counts[outcome.state.lower() or "unlabelled"] += 1
    return {name: dict(sorted(counts.items())) for name, counts in figures.items()}
