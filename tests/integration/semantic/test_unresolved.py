"""`cachecoh semantic unresolved`: what ended in no fingerprint, counted, capped, redacted,
on the real Redis."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis
from typer.testing import CliRunner

from services.cli import app
from services.core.keys import KeySpace
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from services.semantic.unresolved import RecordingExtractor, UnresolvedStore


async def _settle(recorder: RecordingExtractor) -> None:
    for _ in range(100):
        if not recorder._in_flight:
            return
        await asyncio.sleep(0.01)


async def test_misses_are_counted_and_listed(
    extractor: SemanticExtractor,
    redis_client: aioredis.Redis,
    keyspace: KeySpace,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = UnresolvedStore(redis_client, keyspace.prefix)
    recorder = RecordingExtractor(extractor, store)
    for question in ["Mate 70电池多大", "Mate 70电池多大呀", "iPhone 15 zorbly factor"]:
        assert not isinstance(recorder.decide(question), Fingerprint)
    assert isinstance(recorder.decide("iPhone 15多少钱"), Fingerprint)
    await _settle(recorder)
    top = dict(await store.top(10))
    assert top["product:mate 70"] == 2
    assert top["word:zorbly"] == 1
    assert not any("iphone 15" in term for term in top)  # fingerprints are not recorded
    monkeypatch.setenv("CACHECOH_REDIS_PREFIX", keyspace.prefix)
    result = await asyncio.to_thread(
        CliRunner().invoke, app, ["semantic", "unresolved", "--json", "--limit", "3"]
    )
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert len(listed) == 3
    assert {"term": "product:mate 70", "count": 2} in listed


async def test_no_personal_data_is_stored(
    extractor: SemanticExtractor, redis_client: aioredis.Redis, keyspace: KeySpace
) -> None:
    store = UnresolvedStore(redis_client, keyspace.prefix)
    recorder = RecordingExtractor(extractor, store)
    recorder.decide("zorbly 13812345678 wang.lei@example.com 电池多大")
    await _settle(recorder)
    stored = " ".join(term for term, _ in await store.top(50))
    assert "13812345678" not in stored
    assert "example.com" not in stored


async def test_the_store_is_capped(redis_client: aioredis.Redis, keyspace: KeySpace) -> None:
    store = UnresolvedStore(redis_client, keyspace.prefix, cap=5)
    for index in range(20):
        await store.record((f"word:w{index}", "reason:x"))
    top = await store.top(100)
    assert len(top) == 5
    assert top[0] == ("reason:x", 20)
