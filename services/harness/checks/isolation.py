"""``cachecoh check isolation``: no cross-tenant hits, no raw personal data at rest.

A run starts the check stack (``services.harness.checks.stack``) and sends N requests from several
tenants that ask the *same* questions (byte-identical, in the same namespace names, with
the same system prompts), so only the tenant separates their cache entries. Mixed in:
personal data in every place a client can put it (question, content parts, system
message, earlier turns, ``user``, ``metadata``), questions the admission policy bypasses,
conversations, streams, spoofing attempts (another tenant's real ``cache_salt``, tenant
headers) and admin purges that make entries stale mid-run.

**Provenance** (``services.harness.checks.provenance``): every served answer names the upstream
call that produced it, so a hit on another tenant's entry is seen whatever ``X-Cache``
says; the upstream ledger checks that every call carried its owner's salt.

**Personal data at rest**: after the run every key and value of the private Redis, its
append-only file (every write ever made, so written-then-deleted data counts), every row
of every SQL table and the database file, and the logs of gateway, engine and ledger
are scanned for every value sent, in normalised and hashed forms (``pii_scan``). The
scanner is shown to find every value in the requests as sent (a control), so 0 found
means absent, not unseen.

**Admin API**: every admin route is called with no token, wrong tokens, a tenant's API
key and other near misses: all must be 401/403 and none may change anything.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from services.core.prompt import derive_cache_salt
from services.harness.checks.at_rest import scan_stack, scanner_control, summarise_scans
from services.harness.checks.pii_scan import PersonalDataScanner
from services.harness.checks.provenance import Provenance, attribute_answers, per_tenant_figures
from services.harness.checks.report import memory_mib
from services.harness.checks.stack import DEFAULT_TENANTS, CheckStack, StackConfig, running_stack
from services.harness.checks.tenant_traffic import (
    TENANT_HEADERS,
    Outcome,
    QuestionPool,
    RequestKind,
    TrafficPlan,
    TrafficResult,
    TrafficShape,
    chat_body,
    drive,
)
from services.harness.checks.upstream_ledger import answer_origin

ADMIN_ROUTES = (
    ("GET", "/admin/kill-switches", None),
    ("PUT", "/admin/kill-switches/request", {"enabled": False}),
    ("PUT", "/admin/kill-switches/semantic", {"enabled": False}),
    ("POST", "/admin/purge", {"tags": ["iphone_15/p"]}),
    ("GET", "/admin/entries/{key}", None),
)


def isolation_stack_config(
    tenants: Sequence[str] = DEFAULT_TENANTS, **overrides: Any
) -> StackConfig:
    """The stack as the isolation check wants it: Redis history on, the gateway logging at
    DEBUG and the engine at INFO (the more is logged, the more the scan can catch)."""
    settings: dict[str, Any] = {
        "tenants": tuple(tenants),
        "engine_settings": {"seconds_per_output_token": 0.0001, "log_level": "info"},
        "gateway_log_level": "DEBUG",
        "redis_history": True,
        **overrides,
    }
    return StackConfig(**settings)


@dataclass(frozen=True, slots=True)
class IsolationConfig:
    traffic: TrafficShape = field(default_factory=TrafficShape)
    concurrency: int = 32
    request_timeout_s: float = 60.0
    stack: StackConfig = field(default_factory=isolation_stack_config)


# -- spoofing probes -------------------------------------------------------------------


async def probe_spoofing(stack: CheckStack, questions: Sequence[str]) -> list[Outcome]:
    """For every ordered tenant pair (a, b): a caches a question in a fresh namespace; b
    asks the same question there claiming to be a (a's real ``cache_salt``, tenant
    headers, ``user``). b never asked there, so any hit b gets would be a's entry."""
    tenants = stack.config.tenants
    salt_key = stack.cache_salt_key.encode()
    outcomes: list[Outcome] = []
    pairs = [(a, b) for a in range(len(tenants)) for b in range(len(tenants)) if a != b]
    async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=60) as client:
        for number, (a, b) in enumerate(pairs):
            namespace = f"probe-{number}-{secrets.token_hex(3)}"
            question = questions[number % len(questions)]
            slot = f"{namespace}|None|{question}"
            claimed = tenants[a]
            steps: list[tuple[int, dict[str, Any], dict[str, str]]] = [
                (a, {}, {}),
                (a, {}, {}),
                (
                    b,
                    {"cache_salt": derive_cache_salt(claimed, salt_key), "user": claimed},
                    {name: claimed for name in TENANT_HEADERS},
                ),
                (b, {}, {}),
            ]
            for tenant, extra, headers in steps:
                response = await client.post(
                    "/v1/chat/completions",
                    content=orjson.dumps(
                        chat_body([{"role": "user", "content": question}], **extra)
                    ),
                    headers={
                        "authorization": f"Bearer {stack.api_keys[tenants[tenant]]}",
                        "content-type": "application/json",
                        "x-cache-namespace": namespace,
                        **headers,
                    },
                )
                outcomes.append(
                    Outcome(
                        tenant=tenant,
                        kind=RequestKind.PROBE,
                        status=response.status_code,
                        cache=response.headers.get("x-cache", ""),
                        cache_key=response.headers.get("x-cache-key"),
                        completion_id=answer_origin(response.headers, response.content)
                        if response.status_code == 200
                        else None,
                        slot=slot,
                        personal=(),
                    )
                )
    return outcomes


def summarise_probes(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Four outcomes per pair: a miss, a hit (control), b spoofing, b again."""
    served_other = control_failures = 0
    pairs = len(outcomes) // 4
    for start in range(0, pairs * 4, 4):
        first, control, spoofed, again = outcomes[start : start + 4]
        if control.completion_id != first.completion_id or control.state != "HIT":
            control_failures += 1
        theirs = first.completion_id
        if theirs is not None and theirs in (spoofed.completion_id, again.completion_id):
            served_other += 1
    return {
        "pairs": pairs,
        "served_other_tenants_entry": served_other,
        "control_failures": control_failures,
    }


# -- admin -----------------------------------------------------------------------------


def check_admin_auth(stack: CheckStack, entry_key: str | None) -> dict[str, Any]:
    """Every admin route with every wrong credential must be 401/403 and change nothing."""
    token = stack.admin_token
    tenant_key = next(iter(stack.api_keys.values()))
    wrong: dict[str, dict[str, str]] = {
        "missing": {},
        "bearer_without_token": {"authorization": "Bearer"},
        "random_token": {"authorization": f"Bearer {secrets.token_hex(16)}"},
        "tenant_api_key": {"authorization": f"Bearer {tenant_key}"},
        "token_upper_case": {"authorization": f"Bearer {token.upper()}"},
        "token_truncated": {"authorization": f"Bearer {token[:-1]}"},
        "token_extended": {"authorization": f"Bearer {token}0"},
        "basic_scheme": {"authorization": f"Basic {token}"},
        "other_header": {"x-admin-token": token, "x-api-key": token},
    }
    key = entry_key or "req:iphone_15:" + "0" * 64
    attempts = refused = 0
    unexpected: list[dict[str, Any]] = []
    with httpx.Client(base_url=stack.gateway_url, timeout=30) as client:
        for method, route, payload in ADMIN_ROUTES:
            path = route.format(key=key)
            for name, headers in wrong.items():
                response = client.request(
                    method, path, json=payload, headers=headers, params={"token": token}
                )
                attempts += 1
                if response.status_code in (401, 403):
                    refused += 1
                else:
                    unexpected.append(
                        {
                            "route": f"{method} {route}",
                            "credential": name,
                            "status": response.status_code,
                        }
                    )
        authorised = {"authorization": f"Bearer {token}"}
        switches = client.get("/admin/kill-switches", headers=authorised)
        unchanged = switches.status_code == 200 and all(switches.json().values())
    return {
        "attempts": attempts,
        "refused": refused,
        "unexpected": unexpected,
        "right_token_accepted": switches.status_code == 200,
        "switches_unchanged_by_refused_calls": unchanged,
    }


# -- personal data ---------------------------------------------------------------------


def personal_data_figures(plan: TrafficPlan, outcomes: Sequence[Outcome]) -> dict[str, Any]:
    by_kind = Counter(value.kind.value for value in plan.values)
    not_bypassed: Counter[str] = Counter()
    requests = 0
    for outcome in outcomes:
        if not outcome.personal:
            continue
        requests += 1
        if (
            outcome.kind is RequestKind.PERSONAL_IN_MESSAGES
            and outcome.status == 200
            and outcome.cache != "BYPASS; reason=personal_data"
        ):
            for index in outcome.personal:
                not_bypassed[plan.values[index].kind.value] += 1
    return {
        "requests_with_personal_data": requests,
        "values_by_kind": dict(sorted(by_kind.items())),
        "values_in_messages_not_recognised": dict(sorted(not_bypassed.items())),
    }


# -- the whole check -------------------------------------------------------------------


def run_isolation(config: IsolationConfig) -> dict[str, Any]:
    """Start the stack, run the traffic and the probes, attribute, scan; the report."""
    pool = QuestionPool.load(config.traffic.data_dir)
    with running_stack(config.stack) as stack:
        memory_before = stack.memory()
        salt_key = stack.cache_salt_key.encode()
        tenants = stack.config.tenants
        plan = TrafficPlan(
            config.traffic, tenants, pool, {t: derive_cache_salt(t, salt_key) for t in tenants}
        )
        traffic = asyncio.run(
            drive(
                stack,
                plan,
                concurrency=config.concurrency,
                timeout_s=config.request_timeout_s,
            )
        )
        probes = asyncio.run(probe_spoofing(stack, pool.cacheable[:50]))
        entry_key = next((o.cache_key for o in traffic.outcomes if o.cache_key), None)
        admin = check_admin_auth(stack, entry_key)
        outcomes = [*traffic.outcomes, *probes]
        provenance = attribute_answers(outcomes, tenants, stack.ledger_lines(), stack.salt_owners())
        memory_after = stack.memory()
        report = isolation_report(
            config, plan, traffic, provenance, probes, admin, memory_before, memory_after
        )
        scanner = PersonalDataScanner(plan.values)
        control = scanner_control(scanner, plan.personal_bodies)
        if config.stack.keep_work_dir:
            report["work_dir"] = str(stack.work_dir)
        draft = orjson.dumps(report)
        scans = summarise_scans(scanner, scan_stack(stack, scanner, {"report": draft}))
    report["personal_data"].update(scans)
    report["personal_data"]["scanner_control"] = control
    report["raw_pii_found"] = scans["raw_pii_found"]
    report["passed"] = passed(report)
    return report


def isolation_report(
    config: IsolationConfig,
    plan: TrafficPlan,
    traffic: TrafficResult,
    provenance: Provenance,
    probes: Sequence[Outcome],
    admin: dict[str, Any],
    memory_before: Mapping[str, int],
    memory_after: Mapping[str, int],
) -> dict[str, Any]:
    statuses = Counter(str(o.status) for o in traffic.outcomes)
    kinds = Counter(o.kind.value for o in traffic.outcomes)
    return {
        "requests": len(traffic.outcomes),
        "tenants": list(plan.tenants),
        "elapsed_s": round(traffic.seconds, 2),
        "req_per_s": round(len(traffic.outcomes) / traffic.seconds, 1) if traffic.seconds else 0,
        "concurrency": config.concurrency,
        "seed": config.traffic.seed,
        "statuses": dict(sorted(statuses.items())),
        "errors": dict(sorted(traffic.errors.items())),
        "request_kinds": dict(sorted(kinds.items())),
        "purges": traffic.purges,
        "per_tenant": per_tenant_figures(traffic.outcomes, plan.tenants),
        "cross_tenant_hits": provenance.cross_tenant_hits,
        "provenance": provenance.to_dict(),
        "spoof_probes": summarise_probes(probes),
        "pii_values_sent": len(plan.values),
        "raw_pii_found": None,
        "personal_data": personal_data_figures(plan, traffic.outcomes),
        "admin": admin,
        "memory_mib": {"before": memory_mib(memory_before), "after": memory_mib(memory_after)},
    }


def passed(report: Mapping[str, Any]) -> bool:
    provenance = report["provenance"]
    probes = report["spoof_probes"]
    admin = report["admin"]
    control = report["personal_data"]["scanner_control"]
    return (
        report["cross_tenant_hits"] == 0
        and report["raw_pii_found"] == 0
        and provenance["unattributed_answers"] == 0
        and provenance["upstream_calls_with_foreign_salt"] == 0
        and provenance["upstream_calls_with_unknown_salt"] == 0
        and provenance["cache_keys_seen_by_several_tenants"] == 0
        and probes["served_other_tenants_entry"] == 0
        and probes["control_failures"] == 0
        and not admin["unexpected"]
        and admin["right_token_accepted"]
        and admin["switches_unchanged_by_refused_calls"]
        and control["found_as_sent"] == control["values"]
        and control["found_ascii_escaped"] == control["values"]
    )
