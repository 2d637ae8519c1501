"""Routing decisions for the inference router (pure functions over a state snapshot).

Three policies:

- ``round_robin``: healthy replicas in turn; spreads load evenly and every prefix over
  every replica, so each replica's cache must hold the whole working set.
- ``least_loaded``: the healthy replica with the fewest requests in flight (ties: fewest
  routed so far, then configuration order).
- ``prefix_affinity``: a consistent-hash ring (ketama, via ``uhashring``) maps the hash
  of a prompt's leading 16-token blocks to an owner, so requests sharing a prefix meet
  the replica that caches it. Bounded load (Mirrokni, Thorup and Zadimoghaddam, 2017):
  the owner is skipped for the least-loaded replica when it has taken more than
  ``load_factor`` times its fair share of the recently routed requests, or when it has
  ``max_in_flight_gap`` more requests in flight than the least-loaded replica (SGLang's
  cache-aware router falls back the same way on an absolute imbalance: a stalled
  replica). The share is counted over a window of recent decisions, not over requests in
  flight: with a few requests in flight per replica, "1.25 x the mean" is a difference
  of one request, and overflowing on that noise throws cache hits away for no balance.
  Ejected replicas are skipped by walking the ring, so only their keys move.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from uhashring import HashRing

from services.core.errors import CachecohError


class RoutingPolicy(StrEnum):
    ROUND_ROBIN = "round_robin"
    LEAST_LOADED = "least_loaded"
    PREFIX_AFFINITY = "prefix_affinity"


class RouteReason(StrEnum):
    ROUND_ROBIN = "round_robin"
    LEAST_LOADED = "least_loaded"
    #: The key's owner on the ring (the first healthy replica from the key's position).
    PREFIX_OWNER = "prefix_owner"
    #: The owner was over the load bound; the least-loaded replica took the request.
    OWNER_OVERLOADED = "owner_overloaded"
    #: The prompt has no full block to hash; least-loaded.
    NO_PREFIX = "no_prefix"


class RoutingError(CachecohError):
    """Base class for routing errors."""


class NoHealthyReplicaError(RoutingError):
    def __init__(self, configured: int) -> None:
        self.configured = configured
        super().__init__(f"none of the {configured} configured replicas is healthy")


@dataclass(frozen=True, slots=True)
class ReplicaState:
    name: str
    healthy: bool = True
    in_flight: int = 0
    routed_total: int = 0
    #: Requests routed to this replica within the router's recent-decision window.
    recent_routed: int = 0


@dataclass(frozen=True, slots=True)
class RouteDecision:
    replica: str
    reason: RouteReason
    #: The key's ring owner (prefix_affinity only), even when it was not chosen.
    owner: str | None = None


class ConsistentHashRing:
    """Replica names on a ketama ring; built once per replica set, read-only after."""

    def __init__(self, names: Sequence[str], *, vnodes: int = 160) -> None:
        if not names:
            raise ValueError("a hash ring needs at least one replica")
        self.names = tuple(names)
        self._ring = HashRing(nodes=list(self.names), vnodes=vnodes)

    def walk(self, key: str) -> Iterator[str]:
        """Distinct replicas in ring order from the key's position (owner first)."""
        for name in self._ring.iterate_nodes(key):
            yield str(name)

    def owner(self, key: str) -> str:
        return next(self.walk(key))


def _healthy(replicas: Sequence[ReplicaState]) -> list[ReplicaState]:
    healthy = [replica for replica in replicas if replica.healthy]
    if not healthy:
        raise NoHealthyReplicaError(len(replicas))
    return healthy


def round_robin(replicas: Sequence[ReplicaState], turn: int) -> RouteDecision:
    """The ``turn``-th healthy replica, cyclically (the caller increments ``turn``)."""
    healthy = _healthy(replicas)
    return RouteDecision(healthy[turn % len(healthy)].name, RouteReason.ROUND_ROBIN)


def least_loaded(
    replicas: Sequence[ReplicaState], reason: RouteReason = RouteReason.LEAST_LOADED
) -> RouteDecision:
    healthy = _healthy(replicas)
    order = {replica.name: index for index, replica in enumerate(healthy)}
    best = min(healthy, key=lambda r: (r.in_flight, r.recent_routed, order[r.name]))
    return RouteDecision(best.name, reason)


def load_bound(total_load: int, healthy_replicas: int, load_factor: float) -> int:
    """Most load a replica may carry, counting the request being routed:
    ``ceil(c * (m + 1) / n)`` (Mirrokni et al.), at least 1."""
    if healthy_replicas <= 0:
        raise ValueError("no healthy replicas")
    if load_factor < 1.0:
        raise ValueError(f"load_factor must be >= 1, got {load_factor}")
    return max(1, math.ceil(load_factor * (total_load + 1) / healthy_replicas))


def prefix_affinity(
    replicas: Sequence[ReplicaState],
    ring: ConsistentHashRing,
    prefix_key: str | None,
    *,
    load_factor: float = 1.25,
    max_in_flight_gap: int = 16,
    load_window: int = 0,
) -> RouteDecision:
    """The key's owner unless it is overloaded; least-loaded otherwise.

    ``load_window`` is the size of the decision window ``recent_routed`` counts over;
    shares are taken of the full window, so a router that has routed only a few
    requests does not overflow a key because its owner took two of the first three.
    """
    healthy = _healthy(replicas)
    if prefix_key is None:
        return least_loaded(healthy, RouteReason.NO_PREFIX)
    by_name = {replica.name: replica for replica in healthy}
    owner = next((name for name in ring.walk(prefix_key) if name in by_name), None)
    if owner is None:
        # Healthy replicas that are not on the ring (misconfiguration): still serve.
        return least_loaded(healthy, RouteReason.NO_PREFIX)
    owner_state = by_name[owner]
    window_total = max(sum(r.recent_routed for r in healthy), load_window - 1)
    bound = load_bound(window_total, len(healthy), load_factor)
    over_share = owner_state.recent_routed + 1 > bound
    stalled = owner_state.in_flight - min(r.in_flight for r in healthy) >= max_in_flight_gap
    if over_share or stalled:
        decision = least_loaded(healthy, RouteReason.OWNER_OVERLOADED)
        if decision.replica == owner:
            return RouteDecision(owner, RouteReason.PREFIX_OWNER, owner)
        return RouteDecision(decision.replica, RouteReason.OWNER_OVERLOADED, owner)
    return RouteDecision(owner, RouteReason.PREFIX_OWNER, owner)


def prefix_routing_key(hashes: Sequence[bytes], affinity_blocks: int) -> str | None:
    """The routing key of a prompt: its chained hash after at most ``affinity_blocks``
    leading full blocks (the chain covers the salt and every token before it)."""
    if affinity_blocks <= 0:
        raise ValueError(f"affinity_blocks must be positive, got {affinity_blocks}")
    if not hashes:
        return None
    return hashes[min(affinity_blocks, len(hashes)) - 1].hex()


def decide(
    policy: RoutingPolicy,
    replicas: Sequence[ReplicaState],
    *,
    turn: int,
    ring: ConsistentHashRing,
    prefix_key: str | None,
    load_factor: float,
    max_in_flight_gap: int = 16,
    load_window: int = 0,
) -> RouteDecision:
    """Dispatch on the configured policy."""
    if policy is RoutingPolicy.ROUND_ROBIN:
        return round_robin(replicas, turn)
    if policy is RoutingPolicy.LEAST_LOADED:
        return least_loaded(replicas)
    return prefix_affinity(
        replicas,
        ring,
        prefix_key,
        load_factor=load_factor,
        max_in_flight_gap=max_in_flight_gap,
        load_window=load_window,
    )
