"""The prefix-cache accounting model: chained hashes, salt, LRU over a block budget."""

from __future__ import annotations

import pytest

from services.core.prefix_blocks import (
    BLOCK_SIZE,
    PrefixCacheModel,
    UnknownAdmissionError,
    block_hashes,
)


def tokens(n: int, start: int = 0) -> list[int]:
    return list(range(start, start + n))


def test_only_full_blocks_are_hashed() -> None:
    assert len(block_hashes(tokens(15))) == 0
    assert len(block_hashes(tokens(16))) == 1
    assert len(block_hashes(tokens(47))) == 2


def test_hashes_are_chained_over_the_whole_prefix() -> None:
    base = tokens(64)
    changed_late = [*base[:40], 9999, *base[41:]]
    changed_early = [9999, *base[1:]]
    h, late, early = block_hashes(base), block_hashes(changed_late), block_hashes(changed_early)
    assert h[:2] == late[:2] and h[2:] != late[2:]  # block 2 holds token 40
    assert all(a != b for a, b in zip(h, early, strict=True))  # everything after moves


def test_salt_goes_into_the_first_block_and_so_into_every_block() -> None:
    plain, a, b = (
        block_hashes(tokens(48)),
        block_hashes(tokens(48), salt="a"),
        block_hashes(tokens(48), salt="b"),
    )
    assert block_hashes(tokens(48), salt="a") == a
    for x, y in ((plain, a), (a, b)):
        assert all(p != q for p, q in zip(x, y, strict=True))


def test_longest_cached_prefix_hits_and_the_last_token_is_recomputed() -> None:
    cache = PrefixCacheModel(100)
    prompt = tokens(64)
    first = cache.admit(block_hashes(prompt), len(prompt))
    assert (first.query_tokens, first.hit_tokens) == (64, 0)
    cache.release(first)
    # Same 64 tokens: the last block holds the last token, which is always computed.
    again = cache.admit(block_hashes(prompt), len(prompt))
    assert again.hit_tokens == 48
    cache.release(again)
    longer = prompt + tokens(10, 500)
    assert cache.lookup(block_hashes(longer), len(longer)) == 64
    diverging = prompt[:20] + tokens(44, 900)
    assert cache.lookup(block_hashes(diverging), len(diverging)) == 16


def test_tenants_with_different_salts_share_nothing() -> None:
    cache = PrefixCacheModel(100)
    prompt = tokens(80)
    cache.release(cache.admit(block_hashes(prompt, salt="tenant-a"), 80))
    assert cache.lookup(block_hashes(prompt, salt="tenant-b"), 80) == 0
    assert cache.lookup(block_hashes(prompt, salt="tenant-a"), 80) == 64


def test_lru_evicts_the_least_recently_used_idle_blocks() -> None:
    # 2 full blocks + a 1-token tail each; the tail's private block needs room while running.
    cache = PrefixCacheModel(5)
    a, b, c = tokens(33, 0), tokens(33, 1000), tokens(33, 2000)
    cache.release(cache.admit(block_hashes(a), 33))
    cache.release(cache.admit(block_hashes(b), 33))
    cache.release(cache.admit(block_hashes(a), 33))  # a is now more recent than b
    cache.release(cache.admit(block_hashes(c), 33))  # needs room: b goes
    assert cache.lookup(block_hashes(a), 33) == 32
    assert cache.lookup(block_hashes(b), 33) == 0
    assert cache.lookup(block_hashes(c), 33) == 32
    assert cache.stats().cached_blocks == 4


def test_blocks_of_running_requests_are_never_evicted_and_count_as_usage() -> None:
    cache = PrefixCacheModel(4)
    running = cache.admit(block_hashes(tokens(32)), 32, reserve_tokens=16)
    assert cache.stats().blocks_in_use == 3  # 2 prompt blocks + 1 for the output
    assert cache.stats().usage == pytest.approx(0.75)
    other = cache.admit(block_hashes(tokens(64, 100)), 64)
    assert cache.lookup(block_hashes(tokens(32)), 33) == 32  # still cached
    cache.release(other)
    cache.release(running)
    assert cache.stats().blocks_in_use == 0
    assert cache.stats().usage == 0.0


def test_release_twice_is_an_error_and_reset_drops_idle_blocks() -> None:
    cache = PrefixCacheModel(10)
    admission = cache.admit(block_hashes(tokens(32)), 32)
    held = cache.admit(block_hashes(tokens(32, 50)), 32)
    cache.release(admission)
    with pytest.raises(UnknownAdmissionError) as info:
        cache.release(admission)
    assert info.value.admission_id == admission.admission_id
    assert cache.reset() == 2
    assert cache.stats().cached_blocks == 2  # the running request's blocks stay
    cache.release(held)


def test_block_size_is_vllms() -> None:
    assert BLOCK_SIZE == 16


def test_evictions_are_counted() -> None:
    from services.core.prefix_blocks import PrefixCacheModel

    cache = PrefixCacheModel(4, block_size=16)
    for salt in ("a", "b", "c"):
        admission = cache.admit(block_hashes(list(range(64)), salt=salt, block_size=16), 64)
        cache.release(admission)
    assert cache.stats().evicted_blocks == 8
