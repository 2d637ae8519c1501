"""Promise 4 at CI size, and proof that each of its detectors can fail.

The figures of the full run come from ``cachecoh check isolation --requests 100000 --json``;
here the same code sends 1,200 requests (a purge every 450), on SQLite and on Postgres.
Then, on the same live stack, a cross-tenant entry is planted in Redis and raw personal
values are planted in Redis, SQL and the gateway log, and the detectors must report them.
A second stack whose gateway maps two tenants' API keys to one tenant (a
misconfiguration) must be caught too.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
import sqlalchemy as sa

from services.core.keys import KeySpace, Layer
from services.core.prompt import derive_cache_salt
from services.core.redaction import PiiKind
from services.harness.checks.at_rest import scan_stack, scanner_control, summarise_scans
from services.harness.checks.isolation import (
    check_admin_auth,
    isolation_stack_config,
    probe_spoofing,
    summarise_probes,
)
from services.harness.checks.pii_scan import PersonalDataScanner
from services.harness.checks.provenance import Provenance, attribute_answers
from services.harness.checks.stack import CheckStack, StackConfig, running_stack
from services.harness.checks.tenant_traffic import (
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
from services.paths import DEMO_DATA_DIR
from tests.conftest import postgres_schema

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CI_REQUESTS = 1200


@dataclass
class CleanRun:
    stack: CheckStack
    plan: TrafficPlan
    traffic: TrafficResult
    provenance: Provenance
    probes: dict[str, Any]
    admin: dict[str, Any]
    scans: dict[str, Any]
    control: dict[str, int]


def _plan(stack: CheckStack, requests: int, seed: int, purge_every: int = 1000) -> TrafficPlan:
    shape = TrafficShape(requests=requests, seed=seed, purge_every=purge_every)
    salt_key = stack.cache_salt_key.encode()
    tenants = stack.config.tenants
    return TrafficPlan(
        shape,
        tenants,
        QuestionPool.load(DEMO_DATA_DIR),
        {t: derive_cache_salt(t, salt_key) for t in tenants},
    )


def _start(
    config: StackConfig,
) -> tuple[contextlib.AbstractContextManager[CheckStack], CheckStack]:
    manager = running_stack(config)
    return manager, manager.__enter__()


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, CheckStack]]:
    """The module's three stacks, started side by side (most of a start is one gateway
    building its extractor on one core): SQLite (the embedded default), a Postgres schema
    of its own (the production path), and a gateway that maps beta's API key to alpha (a
    misconfiguration). Each has its own Redis, database, ports and work directory."""
    with contextlib.ExitStack() as resources:
        configs = {
            "sqlite": isolation_stack_config(work_dir=tmp_path_factory.mktemp("isolation")),
            "postgres": isolation_stack_config(
                work_dir=tmp_path_factory.mktemp("isolation"),
                database_url=resources.enter_context(postgres_schema()),
            ),
            "merged": isolation_stack_config(
                tenants=("tenant-alpha", "tenant-beta"),
                gateway_tenants={"tenant-beta": "tenant-alpha"},
                work_dir=tmp_path_factory.mktemp("merged"),
                redis_history=False,
            ),
        }
        with ThreadPoolExecutor(len(configs)) as pool:
            futures = {name: pool.submit(_start, config) for name, config in configs.items()}
        started: dict[str, CheckStack] = {}
        errors: list[BaseException] = []
        for name, future in futures.items():
            try:
                manager, stack = future.result()
            except BaseException as exc:  # the ones that started are stopped on exit
                errors.append(exc)
                continue
            resources.push(manager.__exit__)
            started[name] = stack
        if errors:
            raise errors[0]
        yield started


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def clean_run(request: pytest.FixtureRequest, stacks: dict[str, CheckStack]) -> CleanRun:
    """CI-sized mixed traffic, probes, admin checks and the scan (before any test plants
    anything), on the SQLite stack and on the Postgres one."""
    stack = stacks[request.param]
    plan = _plan(stack, CI_REQUESTS, seed=3, purge_every=450)
    traffic = asyncio.run(drive(stack, plan, concurrency=16, timeout_s=60))
    pool = QuestionPool.load(DEMO_DATA_DIR)
    probes = asyncio.run(probe_spoofing(stack, pool.cacheable[:20]))
    provenance = attribute_answers(
        [*traffic.outcomes, *probes],
        stack.config.tenants,
        stack.ledger_lines(),
        stack.salt_owners(),
    )
    entry_key = next(o.cache_key for o in traffic.outcomes if o.cache_key)
    admin = check_admin_auth(stack, entry_key)
    scanner = PersonalDataScanner(plan.values)
    scans = summarise_scans(scanner, scan_stack(stack, scanner))
    return CleanRun(
        stack,
        plan,
        traffic,
        provenance,
        summarise_probes(probes),
        admin,
        scans,
        scanner_control(scanner, plan.personal_bodies),
    )


def test_no_cross_tenant_hit_in_mixed_traffic(clean_run: CleanRun) -> None:
    provenance = clean_run.provenance
    assert provenance.cross_tenant_hits == 0
    assert provenance.unattributed_answers == 0
    assert provenance.upstream_calls_with_foreign_salt == 0
    assert provenance.upstream_calls_with_unknown_salt == 0
    assert provenance.cache_keys_seen_by_several_tenants == 0
    # Not vacuous: tenants did hit their own entries of questions other tenants asked too.
    assert provenance.hits_on_own_entries > CI_REQUESTS // 10
    assert provenance.questions_hit_by_several_tenants > 10
    assert clean_run.traffic.purges >= 2
    statuses = {o.status for o in clean_run.traffic.outcomes}
    assert statuses == {200}


def test_spoofed_salts_and_tenant_headers_reach_no_other_tenant(clean_run: CleanRun) -> None:
    tenants = len(clean_run.stack.config.tenants)
    assert clean_run.probes == {
        "pairs": tenants * (tenants - 1),
        "served_other_tenants_entry": 0,
        "control_failures": 0,
    }
    spoofs = [o for o in clean_run.traffic.outcomes if o.kind is RequestKind.SPOOF]
    assert spoofs and all(o.status == 200 for o in spoofs)


def test_no_raw_personal_data_anywhere(clean_run: CleanRun) -> None:
    assert len(clean_run.plan.values) > 100
    assert {v.kind for v in clean_run.plan.values} >= {
        PiiKind.CN_ID,
        PiiKind.CN_MOBILE,
        PiiKind.CN_LANDLINE,
        PiiKind.BANK_CARD,
        PiiKind.EMAIL,
        PiiKind.PERSON,
    }
    assert clean_run.scans["raw_pii_found"] == 0, clean_run.scans["where"]
    sources = clean_run.scans["sources"]
    assert sources["redis_keys_and_values"]["bytes"] > 100_000
    assert any(name.startswith("redis_history:") and s["bytes"] for name, s in sources.items())
    assert sources["sql_rows"]["bytes"] > 0 and sources["gateway_log"]["bytes"] > 0
    control = clean_run.control
    assert control["found_as_sent"] == control["found_ascii_escaped"] == control["values"]


def test_admin_api_refuses_missing_and_wrong_tokens(clean_run: CleanRun) -> None:
    admin = clean_run.admin
    assert admin["unexpected"] == []
    assert admin["refused"] == admin["attempts"] >= 40
    assert admin["right_token_accepted"] and admin["switches_unchanged_by_refused_calls"]


async def _ask(
    client: httpx.AsyncClient, stack: CheckStack, tenant: str, question: str, namespace: str
) -> Outcome:
    response = await client.post(
        "/v1/chat/completions",
        content=orjson.dumps(chat_body([{"role": "user", "content": question}])),
        headers={
            "authorization": f"Bearer {stack.api_keys[tenant]}",
            "content-type": "application/json",
            "x-cache-namespace": namespace,
        },
    )
    assert response.status_code == 200
    return Outcome(
        tenant=stack.config.tenants.index(tenant),
        kind=RequestKind.PROBE,
        status=200,
        cache=response.headers["x-cache"],
        cache_key=response.headers.get("x-cache-key"),
        completion_id=answer_origin(response.headers, response.content),
        slot=f"{namespace}|{question}",
        personal=(),
    )


def test_a_planted_cross_tenant_entry_is_detected(clean_run: CleanRun) -> None:
    """Copy alpha's request-layer entry over beta's: beta's next hit carries alpha's
    answer, and the provenance check must say so."""
    stack = clean_run.stack
    alpha, beta = stack.config.tenants[:2]
    question = "iPhone 15 的重量是多少"

    async def scenario() -> list[Outcome]:
        async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=30) as client:
            first = await _ask(client, stack, alpha, question, "planted-a")
            again = await _ask(client, stack, alpha, question, "planted-a")
            own = await _ask(client, stack, beta, question, "planted-b")
            assert (first.state, again.state, own.state) == ("MISS", "HIT", "MISS")
            assert own.completion_id != first.completion_id
            keys = KeySpace(stack.redis_prefix)
            assert first.cache_key and own.cache_key
            _, product, alpha_digest = first.cache_key.split(":")
            _, _, beta_digest = own.cache_key.split(":")
            redis = stack.redis_client()
            try:
                payload = redis.dump(keys.entry(product, Layer.REQUEST, alpha_digest))
                assert payload is not None
                redis.restore(
                    keys.entry(product, Layer.REQUEST, beta_digest), 0, payload, replace=True
                )
            finally:
                redis.close()
            planted = await _ask(client, stack, beta, question, "planted-b")
            assert planted.state == "HIT"
            return [first, again, own, planted]

    outcomes = asyncio.run(scenario())
    provenance = attribute_answers(
        outcomes, stack.config.tenants, stack.ledger_lines(), stack.salt_owners()
    )
    assert provenance.cross_tenant_hits == 1
    assert provenance.cross_tenant_by_cache_state == {"HIT": 1}


def test_planted_raw_personal_values_are_found(clean_run: CleanRun) -> None:
    """Raw values written the ways a leak would write them: digits without separators in
    Redis, a JSON-escaped name in a Redis hash, an upper-cased e-mail in the gateway log,
    a SHA-256 of a card number in a SQL table."""
    stack, values = clean_run.stack, clean_run.plan.values
    by_kind = {value.kind: value for value in reversed(values)}
    mobile, person = by_kind[PiiKind.CN_MOBILE], by_kind[PiiKind.PERSON]
    email, card = by_kind[PiiKind.EMAIL], by_kind[PiiKind.BANK_CARD]
    redis = stack.redis_client()
    try:
        redis.set(f"{stack.redis_prefix}:planted:phone", f"call {mobile.canonical} please")
        redis.hset(f"{stack.redis_prefix}:planted:hash", "customer", json.dumps(person.text))
    finally:
        redis.close()
    with stack.log_paths()["gateway_log"].open("a", encoding="utf-8") as log:
        log.write(f"INFO leaked contact {email.text.upper()}\n")
    engine = sa.create_engine(stack.database_url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE planted_leak (digest TEXT)"))
        digest = hashlib.sha256(card.canonical.encode()).hexdigest()
        connection.execute(sa.text("INSERT INTO planted_leak VALUES (:d)"), {"d": digest})
    engine.dispose()
    scanner = PersonalDataScanner(values)
    found = summarise_scans(scanner, scan_stack(stack, scanner))
    assert found["raw_pii_found"] == 4
    where = {(w["source"], w["kind"], w["form"]) for w in found["where"]}
    assert ("redis_keys_and_values", "cn_mobile", "normalised") in where
    assert ("redis_keys_and_values", "person", "normalised") in where
    assert ("gateway_log", "email", "normalised") in where
    assert ("sql_rows", "bank_card", "sha256") in where
    assert any(s.startswith("redis_history:") and k == "cn_mobile" for s, k, _ in where)


def test_a_gateway_that_merges_two_tenants_is_caught(stacks: dict[str, CheckStack]) -> None:
    """The gateway maps beta's API key to alpha (a misconfiguration): beta is served
    alpha's entries, and beta's own upstream calls carry alpha's salt."""
    stack = stacks["merged"]
    plan = _plan(stack, 600, seed=5)
    traffic = asyncio.run(drive(stack, plan, concurrency=8, timeout_s=60))
    provenance = attribute_answers(
        traffic.outcomes, stack.config.tenants, stack.ledger_lines(), stack.salt_owners()
    )
    assert provenance.cross_tenant_hits > 0
    assert provenance.cross_tenant_by_cache_state.get("HIT", 0) > 0
    assert provenance.cache_keys_seen_by_several_tenants > 0
    assert provenance.upstream_calls_with_foreign_salt > 0
