"""Routing policies as pure functions over a replica-state snapshot."""

from __future__ import annotations

from collections import Counter

import pytest

from services.core.routing import (
    ConsistentHashRing,
    NoHealthyReplicaError,
    ReplicaState,
    RouteReason,
    RoutingPolicy,
    decide,
    least_loaded,
    load_bound,
    prefix_affinity,
    prefix_routing_key,
    round_robin,
)

NAMES = ["r0", "r1", "r2", "r3"]


def replicas(**changes: dict[str, object]) -> list[ReplicaState]:
    return [ReplicaState(name, **changes.get(name, {})) for name in NAMES]  # type: ignore[arg-type]


def test_round_robin_cycles_over_healthy_replicas_only() -> None:
    state = replicas(r1={"healthy": False})
    assert [round_robin(state, turn).replica for turn in range(6)] == ["r0", "r2", "r3"] * 2


def test_least_loaded_prefers_fewest_in_flight_then_fewest_recent() -> None:
    state = replicas(
        r0={"in_flight": 3},
        r1={"in_flight": 1, "recent_routed": 9},
        r2={"in_flight": 1, "recent_routed": 2},
        r3={"in_flight": 5},
    )
    assert least_loaded(state).replica == "r2"


def test_no_healthy_replica_is_an_error_with_the_count() -> None:
    with pytest.raises(NoHealthyReplicaError) as info:
        round_robin([ReplicaState("a", healthy=False)], 0)
    assert info.value.configured == 1


def test_ring_spreads_keys_and_moves_only_the_removed_replicas_keys() -> None:
    ring = ConsistentHashRing(NAMES)
    keys = [f"key-{i}" for i in range(4000)]
    owners = {key: ring.owner(key) for key in keys}
    counts = Counter(owners.values())
    assert set(counts) == set(NAMES)
    assert max(counts.values()) / (len(keys) / 4) < 1.3
    state = replicas(r2={"healthy": False})
    for key in keys:
        chosen = prefix_affinity(state, ring, key, load_factor=100).replica
        if owners[key] != "r2":
            assert chosen == owners[key]
        else:
            assert chosen != "r2"


def test_prefix_affinity_sends_a_key_to_its_owner() -> None:
    ring = ConsistentHashRing(NAMES)
    decision = prefix_affinity(replicas(), ring, "tenant-a/template-b")
    assert decision.reason is RouteReason.PREFIX_OWNER
    assert decision.replica == decision.owner == ring.owner("tenant-a/template-b")


def test_owner_over_its_share_of_recent_requests_overflows_to_least_loaded() -> None:
    ring = ConsistentHashRing(NAMES)
    owner = ring.owner("hot")
    # 40 recent decisions, the owner took 16: bound ceil(1.25 * 41 / 4) = 13.
    recent = {name: {"recent_routed": 8} for name in NAMES}
    recent[owner] = {"recent_routed": 16}
    decision = prefix_affinity(replicas(**recent), ring, "hot", load_factor=1.25)
    assert decision.reason is RouteReason.OWNER_OVERLOADED
    assert decision.owner == owner and decision.replica != owner
    # Within its share it keeps the key.
    recent[owner] = {"recent_routed": 11}
    assert prefix_affinity(replicas(**recent), ring, "hot").replica == owner


def test_a_stalled_owner_overflows_on_the_in_flight_gap() -> None:
    ring = ConsistentHashRing(NAMES)
    owner = ring.owner("k")
    state = replicas(**{owner: {"in_flight": 20}})
    decision = prefix_affinity(state, ring, "k", load_factor=100, max_in_flight_gap=16)
    assert decision.reason is RouteReason.OWNER_OVERLOADED and decision.replica != owner
    calm = replicas(**{owner: {"in_flight": 10}})
    assert prefix_affinity(calm, ring, "k", load_factor=100, max_in_flight_gap=16).replica == owner


def test_prompt_without_a_full_block_goes_least_loaded() -> None:
    ring = ConsistentHashRing(NAMES)
    decision = prefix_affinity(replicas(r0={"in_flight": 1}), ring, None)
    assert decision.reason is RouteReason.NO_PREFIX and decision.replica == "r1"


def test_load_bound_is_ceil_c_times_mean_including_the_new_request() -> None:
    assert load_bound(0, 4, 1.25) == 1
    assert load_bound(40, 4, 1.25) == 13
    with pytest.raises(ValueError):
        load_bound(1, 4, 0.5)


def test_routing_key_covers_at_most_the_leading_blocks() -> None:
    hashes = [bytes([i]) * 32 for i in range(5)]
    assert prefix_routing_key(hashes, 3) == hashes[2].hex()
    assert prefix_routing_key(hashes[:2], 3) == hashes[1].hex()
    assert prefix_routing_key([], 3) is None


@pytest.mark.parametrize("policy", list(RoutingPolicy))
def test_decide_dispatches_every_policy(policy: RoutingPolicy) -> None:
    decision = decide(
        policy, replicas(), turn=5, ring=ConsistentHashRing(NAMES), prefix_key="k", load_factor=1.25
    )
    assert decision.replica in NAMES


def test_shares_are_of_the_full_window_so_a_cold_router_does_not_overflow() -> None:
    ring = ConsistentHashRing(NAMES)
    owner = ring.owner("k")
    state = replicas(**{owner: {"recent_routed": 2}})  # 2 of the first 2 decisions
    assert prefix_affinity(state, ring, "k", load_window=256).replica == owner
    assert prefix_affinity(state, ring, "k", load_window=0).reason is RouteReason.OWNER_OVERLOADED
