"""The service layer with in-memory fakes of our own ports (no infrastructure here)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from services.adapters.contract_files import EVENT_SCHEMA, validator_for
from services.adapters.redis_tag_store import BumpRequest, LogPosition
from services.coherence.handler import CoherenceHandler, RawRecord
from services.coherence.metrics import CoherenceMetrics
from services.coherence.retry import Backoff
from services.core.errors import InvalidEvent, StoreUnavailable
from services.core.events import new_event
from services.core.mapping import MappingSet, ProductBump
from tests.unit.coherence.test_tags_and_mapping import SHIPPED


@dataclass(frozen=True)
class Applied:
    applied: bool = True


@dataclass
class FlakyStore:
    failures: int = 0
    bumps: list[ProductBump] = field(default_factory=list)

    async def bump_many(
        self, bumps: Sequence[BumpRequest], handled: Sequence[LogPosition] = ()
    ) -> list[Applied]:
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("down")
        self.bumps.extend(b.bump for b in bumps)
        return [Applied() for _ in bumps]


@dataclass
class Letters:
    sent: list[tuple[RawRecord, InvalidEvent]] = field(default_factory=list)

    async def send(self, record: RawRecord, error: InvalidEvent) -> None:
        self.sent.append((record, error))


class Directory:
    async def knows(self, product_id: str) -> bool:
        return product_id == "iphone_15"

    async def variants(self, product_id: str) -> Mapping[str, Collection[str]]:
        return {}

    async def product_ids(self) -> Collection[str]:
        return ["iphone_15"]


def _handler(
    store: FlakyStore, letters: Letters, mappings: MappingSet = SHIPPED, **kw: object
) -> CoherenceHandler:
    return CoherenceHandler(
        validator=validator_for(EVENT_SCHEMA),
        mappings=mappings,
        store=store,
        dead_letters=letters,
        directory=Directory(),
        metrics=CoherenceMetrics.create(),
        worker_id="test",
        backoff=Backoff(0.001, 0.002),
        **kw,  # type: ignore[arg-type]
    )


def _record(value: bytes | None, key: bytes | None = b"iphone_15") -> RawRecord:
    return RawRecord("t", 0, 1, key, value)


async def test_transient_store_errors_are_retried_until_applied() -> None:
    store, letters = FlakyStore(failures=3), Letters()
    event = new_event("iphone_15", ["weight"], 2, source="t")
    audit = await _handler(store, letters).handle(_record(event.to_bytes()))
    assert audit.outcome == "applied"
    assert [b.fields for b in store.bumps] == [("s:weight",)]


async def test_invalid_record_is_dead_lettered_not_raised() -> None:
    store, letters = FlakyStore(), Letters()
    audit = await _handler(store, letters).handle(_record(b"{nope"))
    assert audit.outcome == "dead_lettered" and audit.reason and audit.reason.startswith("not_json")
    assert len(letters.sent) == 1 and store.bumps == []


async def test_strict_mode_dead_letters_unknown_products() -> None:
    store, letters = FlakyStore(), Letters()
    event = new_event("pixel_9", ["weight"], 2, source="t")
    audit = await _handler(store, letters, strict_products=True).handle(
        _record(event.to_bytes(), b"pixel_9")
    )
    assert audit.outcome == "dead_lettered"
    assert letters.sent[0][1].reason.value == "unknown_product"


async def test_a_planning_bug_falls_back_to_the_whole_product() -> None:
    class Broken(MappingSet):
        def rules_for(self, product_id: str) -> Mapping[str, object]:  # type: ignore[override]
            raise RuntimeError("bug")

    store, letters = FlakyStore(), Letters()
    event = new_event("iphone_15", ["weight"], 2, source="t")
    handler = _handler(store, letters, mappings=Broken())
    audit = await handler.handle(_record(event.to_bytes()))
    assert audit.outcome == "applied"
    assert [b.fields for b in store.bumps] == [("p",)]
    assert handler.metrics.fallback_invalidations._value.get() == 1


async def test_a_batch_mixes_dead_letters_and_bumps_in_order() -> None:
    store, letters = FlakyStore(), Letters()
    good = [new_event("iphone_15", ["weight"], 2 + i, source="t") for i in range(3)]
    records = [
        RawRecord("t", 0, 0, b"iphone_15", good[0].to_bytes()),
        RawRecord("t", 0, 1, b"iphone_15", b"oops"),
        RawRecord("t", 0, 2, b"iphone_15", good[1].to_bytes()),
        RawRecord("t", 0, 3, b"iphone_15", good[2].to_bytes()),
    ]
    audits = await _handler(store, letters).handle_batch(records)
    assert [a.offset for a in audits] == [0, 1, 2, 3]
    assert [a.outcome for a in audits] == ["applied", "dead_lettered", "applied", "applied"]
    assert len(store.bumps) == 3


async def test_a_plan_is_reused_only_while_the_directory_hands_out_the_same_variants() -> None:
    """Plans are remembered per product and changed fields; a refreshed directory (new
    variants) plans again, so a variant that became known narrows the bump at once."""

    class Refreshing(Directory):
        def __init__(self) -> None:
            self.current: Mapping[str, Collection[str]] = {}

        async def variants(self, product_id: str) -> Mapping[str, Collection[str]]:
            return self.current

    store, letters = FlakyStore(), Letters()
    directory = Refreshing()
    handler = _handler(store, letters)
    handler.directory = directory
    first, again = (
        new_event("iphone_15", ["price.256GB"], v, source="t", event_id=f"e{v}") for v in (2, 3)
    )
    audits = await handler.handle_batch(
        [_record(first.to_bytes()), RawRecord("t", 0, 2, b"iphone_15", again.to_bytes())]
    )
    assert [a.event_id for a in audits] == ["e2", "e3"]  # each plan names its own event
    unknown_variant = store.bumps[0].fields
    assert store.bumps[1].fields == unknown_variant
    directory.current = {"price": frozenset({"256GB"})}  # the spec store learnt the variant
    later = new_event("iphone_15", ["price.256GB"], 4, source="t", event_id="e4")
    await handler.handle(RawRecord("t", 0, 3, b"iphone_15", later.to_bytes()))
    assert store.bumps[2].fields != unknown_variant
    assert "s:price.256GB" in store.bumps[2].fields
