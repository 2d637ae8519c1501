"""The isolation check's provenance and the load check's bucket bound can each fail."""

from __future__ import annotations

from services.harness.checks.load import Sample, check_bucket
from services.harness.checks.provenance import attribute_answers
from services.harness.checks.tenant_traffic import Outcome, RequestKind
from services.harness.checks.upstream_ledger import LedgerLine

TENANTS = ("a", "b")
SALTS = {"salt-a": "a", "salt-b": "b"}


def _outcome(tenant: int, cache: str, call: str, key: str = "req:p:1") -> Outcome:
    return Outcome(tenant, RequestKind.QUESTION, 200, cache, key, call, "slot", ())


def _call(call: str, salt: str | None, at: float = 0.0) -> LedgerLine:
    return LedgerLine(at, salt, False, 200, call)


def test_own_hits_are_not_cross_tenant() -> None:
    outcomes = [
        _outcome(0, "MISS", "c1", "req:p:da"),
        _outcome(0, "HIT; layer=request", "c1", "req:p:da"),
        _outcome(1, "MISS", "c2", "req:p:db"),
        _outcome(1, "HIT; layer=semantic", "c2", "sem:p:db2"),
    ]
    found = attribute_answers(
        outcomes, TENANTS, [_call("c1", "salt-a"), _call("c2", "salt-b")], SALTS
    )
    assert (found.cross_tenant_hits, found.hits_on_own_entries) == (0, 2)
    assert found.unattributed_answers == found.upstream_calls_with_foreign_salt == 0


def test_a_hit_on_another_tenants_answer_is_counted() -> None:
    outcomes = [_outcome(0, "MISS", "c1", "req:p:da"), _outcome(1, "HIT; layer=request", "c1")]
    found = attribute_answers(outcomes, TENANTS, [_call("c1", "salt-a")], SALTS)
    assert found.cross_tenant_hits == 1
    assert found.cross_tenant_by_cache_state == {"HIT": 1}


def test_the_salt_witness_and_unknown_answers_are_counted() -> None:
    outcomes = [
        _outcome(1, "BYPASS; reason=personal_data", "c1", ""),  # b's call with a's salt
        _outcome(0, "MISS", "c2", "req:p:x"),  # a call with a client-chosen salt
        _outcome(0, "HIT; layer=request", "c9", "req:p:x"),  # no upstream call made c9
        _outcome(1, "MISS", "c3", "req:p:x"),  # the same key digest for tenant b
    ]
    ledger = [_call("c1", "salt-a"), _call("c2", "chosen-by-client"), _call("c3", "salt-b")]
    found = attribute_answers(outcomes, TENANTS, ledger, SALTS)
    assert found.upstream_calls_with_foreign_salt == 1
    assert found.upstream_calls_with_unknown_salt == 1
    assert found.unattributed_answers == 1
    assert found.cache_keys_seen_by_several_tenants == 1


def _sample(call: str, key: str = "|q") -> Sample:
    return Sample("refresh", key, 200, "MISS", 0.1, call, 0.01)


def test_calls_within_the_bucket_pass_and_a_burst_beyond_it_fails() -> None:
    # capacity 2, 1 token/s: 2 at once, then one per second, is exactly allowed.
    times = [0.0, 0.0, 1.0, 2.0, 3.0]
    ledger = [_call(f"c{i}", "s", t) for i, t in enumerate(times)]
    samples = [_sample(f"c{i}") for i in range(len(times))]
    fits = check_bucket(samples, ledger, capacity=2, refill_per_s=1.0, refresh_keys=["q"])
    assert fits.violations == 0 and fits.max_calls_per_key == 5
    burst = [*ledger, _call("c9", "s", 3.0), _call("c10", "s", 3.0)]
    too_many = check_bucket(
        [*samples, _sample("c9"), _sample("c10")],
        burst,
        capacity=2,
        refill_per_s=1.0,
        refresh_keys=["q"],
    )
    assert too_many.violations > 0 and too_many.tightest_margin < 0


def test_bypassed_answers_are_counted_apart_from_the_bucket() -> None:
    # A bypassed question is forwarded every time (no fill, no bucket): many calls at
    # once are reported, not judged against the question's bucket.
    ledger = [_call(f"b{i}", "s", 0.0) for i in range(6)]
    samples = [
        Sample("hot", "|q", 200, "BYPASS; reason=no_fingerprint", 0.1, f"b{i}", 0.01)
        for i in range(6)
    ]
    found = check_bucket(samples, ledger, capacity=2, refill_per_s=1.0, refresh_keys=["q"])
    assert found.violations == 0 and found.max_calls_per_key == 0
    assert found.bypass_upstream_calls == 6 and found.bypass_keys == 1
    assert found.bypass_reasons == {"no_fingerprint": 6}
    assert found.unattributed_upstream_calls == 0
    # The same calls as cache misses break the bucket.
    misses = [Sample("hot", "|q", 200, "MISS", 0.1, f"b{i}", 0.01) for i in range(6)]
    assert (
        check_bucket(misses, ledger, capacity=2, refill_per_s=1.0, refresh_keys=["q"]).violations
        > 0
    )
