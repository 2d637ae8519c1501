"""vLLM-compatible block hashes, the KV-event wire format, the block index and the
kv_aware routing decision (pure), and the engine -> router event path over real ZMQ."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
import zmq

from services.core.kv_events import (
    AllBlocksCleared,
    BlockRemoved,
    BlockStored,
    KVEventBatch,
    external_block_hash,
)
from services.core.kv_index import EventSequences, KvBlockIndex, SequenceVerdict
from services.core.prefix_blocks import PrefixCacheModel, block_hashes, none_hash
from services.core.routing import ConsistentHashRing, ReplicaState, RouteReason, kv_aware
from services.inference.kv_event_wire import KvEventDecodeError, decode_frames, encode_frames


def test_none_hash_is_sha256_of_the_cbor_text_string() -> None:
    # CBOR: major type 3 (text), length 1 -> 0x61, then "0".
    assert none_hash("0") == hashlib.sha256(b"\x61\x30").digest()


def test_first_block_hash_is_vllms_cbor_triple() -> None:
    tokens = list(range(16))
    # [parent (bytes, 32), tokens (array of 16 small ints), extra keys] in canonical CBOR.
    parent = none_hash("0")
    encoded = b"\x83" + b"\x58\x20" + parent + b"\x90" + bytes(range(16))
    assert block_hashes(tokens)[0] == hashlib.sha256(encoded + b"\xf6").digest()
    salted = encoded + b"\x81\x61s"  # ("s",)
    assert block_hashes(tokens, salt="s")[0] == hashlib.sha256(salted).digest()
    assert block_hashes(tokens, hash_seed="1") != block_hashes(tokens)


def test_external_hash_is_the_low_64_bits() -> None:
    digest = bytes(range(32))
    assert external_block_hash(digest) == int.from_bytes(digest[-8:], "big")
    assert external_block_hash(external_block_hash(digest)) == external_block_hash(digest)


def test_wire_round_trip_matches_vllm_array_layout() -> None:
    batch = KVEventBatch(
        ts=1.5,
        events=(
            BlockStored((1, 2), None, tuple(range(32)), 16),
            BlockRemoved((1,)),
            AllBlocksCleared(),
        ),
        data_parallel_rank=0,
    )
    frames = encode_frames("kv", 7, batch)
    assert frames[0] == b"kv" and frames[1] == (7).to_bytes(8, "big")
    raw = msgpack.unpackb(frames[2])
    assert raw[0] == 1.5 and raw[2] == 0
    assert raw[1][0] == ["BlockStored", [1, 2], None, list(range(32)), 16, None, "GPU"]
    assert raw[1][1] == ["BlockRemoved", [1], "GPU"]
    assert raw[1][2] == ["AllBlocksCleared"]
    message = decode_frames(frames)
    assert message.sequence == 7 and message.batch == batch


def test_decoder_reads_map_tagged_events_bytes_hashes_and_skips_unknown() -> None:
    digest = hashlib.sha256(b"x").digest()
    payload = msgpack.packb(
        [
            2.0,
            [
                {
                    "type": "BlockStored",
                    "block_hashes": [digest],
                    "parent_block_hash": None,
                    "token_ids": [1] * 16,
                    "block_size": 16,
                    "lora_id": None,
                    "medium": "GPU",
                    "lora_name": None,
                    "extra_keys": [["salt"]],
                },
                ["BlockMigrated", [1], "peer"],
            ],
        ]
    )
    message = decode_frames([b"", (0).to_bytes(8, "big"), payload])
    stored = message.batch.events[0]
    assert isinstance(stored, BlockStored)
    assert stored.block_hashes == (external_block_hash(digest),)
    assert message.unknown_events == 1
    with pytest.raises(KvEventDecodeError):
        decode_frames([b"", b"\x00", payload])
    with pytest.raises(KvEventDecodeError):
        decode_frames([b"", (0).to_bytes(8, "big"), b"\xc1"])


def test_index_longest_prefix_and_forgetting() -> None:
    index = KvBlockIndex()
    index.apply("a", [BlockStored((1, 2, 3), None, (), 16)])
    index.apply("b", [BlockStored((1, 2), None, (), 16)])
    assert index.prefix_matches([1, 2, 3, 4], ["a", "b", "c"]) == {"a": 3, "b": 2, "c": 0}
    index.apply("a", [BlockRemoved((2,))])
    assert index.prefix_matches([1, 2, 3], ["a", "b"]) == {"a": 1, "b": 2}
    index.apply("b", [AllBlocksCleared()])
    assert index.prefix_matches([1, 2, 3], ["a", "b"]) == {"a": 1, "b": 0}
    assert index.forget_replica("a") == 2
    assert index.prefix_matches([1], ["a"]) == {"a": 0}


def test_sequences_detect_gaps_and_restarts() -> None:
    sequences = EventSequences()
    assert sequences.observe("a", 5) is SequenceVerdict.FIRST
    assert sequences.observe("a", 6) is SequenceVerdict.IN_ORDER
    assert sequences.observe("a", 9) is SequenceVerdict.GAP
    assert sequences.observe("a", 0) is SequenceVerdict.RESTART
    sequences.lost("a")
    assert sequences.observe("a", 3) is SequenceVerdict.FIRST


def _states(**load: int) -> list[ReplicaState]:
    return [ReplicaState(name, recent_routed=n) for name, n in load.items()]


def test_kv_aware_takes_the_longest_prefix_within_the_bound() -> None:
    ring = ConsistentHashRing(["a", "b", "c"])
    keys = [f"{i:016x}" for i in range(4)]
    decision = kv_aware(
        _states(a=0, b=0, c=0), ring, "k", {"a": 1, "b": 3, "c": 0}, keys, load_window=30
    )
    assert decision.replica == "b" and decision.reason is RouteReason.KV_PREFIX
    # b took far more than its share of the window: the longest holder within the bound.
    decision = kv_aware(
        _states(a=5, b=20, c=5), ring, "k", {"a": 1, "b": 3, "c": 0}, keys, load_window=30
    )
    assert decision.replica == "a" and decision.reason is RouteReason.KV_PREFIX_OVERFLOW
    # Nothing cached anywhere: consistent hashing.
    cold = kv_aware(_states(a=0, b=0, c=0), ring, "k", {}, keys, load_window=30)
    assert cold.reason is RouteReason.PREFIX_OWNER and cold.replica == ring.owner("k")


def test_kv_aware_avoids_a_full_or_queueing_replica() -> None:
    ring = ConsistentHashRing(["a", "b"])
    keys = ["00"]
    full = [ReplicaState("a", kv_usage=0.99), ReplicaState("b")]
    assert kv_aware(full, ring, "k", {"a": 1, "b": 1}, keys).replica == "b"
    queued = [ReplicaState("a", waiting=20), ReplicaState("b")]
    assert kv_aware(queued, ring, "k", {"a": 1, "b": 0}, keys).replica == "b"


def test_model_events_replay_into_an_index_that_mirrors_the_cache() -> None:
    cache = PrefixCacheModel(6)
    index = KvBlockIndex()
    prompts = [list(range(start, start + 48)) for start in (0, 1000, 2000)]
    for prompt in prompts:
        hashes = block_hashes(prompt)
        cache.release(cache.admit(hashes, len(prompt), token_ids=prompt))
        index.apply("r", cache.drain_events())
    for prompt in prompts:
        hashes = [external_block_hash(h) for h in block_hashes(prompt)]
        held = index.prefix_matches(hashes, ["r"])["r"]
        assert held * 16 == cache.lookup(block_hashes(prompt), len(prompt) + 1)
    cache.reset()
    index.apply("r", cache.drain_events())
    assert index.blocks_of("r") == 0


def test_finished_requests_are_evicted_tail_first() -> None:
    cache = PrefixCacheModel(4)
    prompt = list(range(64))
    cache.release(cache.admit(block_hashes(prompt), 64))
    other = list(range(500, 532))
    cache.release(cache.admit(block_hashes(other), 32))  # needs 2 blocks: the tail goes
    assert cache.lookup(block_hashes(prompt), 65) == 32  # the head is still cached


def test_generated_blocks_are_cached() -> None:
    cache = PrefixCacheModel(10)
    computed = list(range(40))  # a 20-token prompt and 20 computed output tokens
    hashes = block_hashes(computed)
    admission = cache.admit(hashes[:1], 20, reserve_tokens=21, token_ids=computed)
    cache.release(admission, generated_hashes=hashes[1:], generated_token_ids=computed[16:32])
    follow_up = computed + [7] * 10
    assert cache.lookup(block_hashes(follow_up), len(follow_up)) == 32
    stored = [e for e in cache.drain_events() if isinstance(e, BlockStored)]
    assert stored[-1].parent_block_hash == external_block_hash(hashes[0])
    assert stored[-1].token_ids == tuple(computed[16:32])


def test_engine_events_over_zmq_meet_the_routers_hashes() -> None:
    """The offline engine publishes over real ZMQ; the router's hasher names the same
    blocks for the same prompt and salt."""
    from services.core.prompt import render_chat_prompt
    from services.inference.engine.kv_events import ZmqKvEventPublisher
    from services.inference.router.keying import PromptHasher
    from services.inference.tokenization import OfflineTokenizer

    tokenizer = OfflineTokenizer.from_file()
    messages = [
        {"role": "system", "content": "You answer product questions. " * 12},
        {"role": "user", "content": "How long does the iPhone 15 battery last?"},
    ]
    salt = "tenant-salt"
    context = zmq.Context()
    subscriber = context.socket(zmq.SUB)
    port = subscriber.bind_to_random_port("tcp://127.0.0.1")
    subscriber.setsockopt(zmq.SUBSCRIBE, b"kv")
    publisher = ZmqKvEventPublisher(f"tcp://127.0.0.1:{port}", "kv")
    try:
        prompt = tokenizer.encode(render_chat_prompt(messages))
        cache = PrefixCacheModel(100)
        hashes = block_hashes(prompt, salt=salt)
        cache.admit(hashes, len(prompt), token_ids=prompt)
        events = cache.drain_events()
        received: list[int] = []
        for _ in range(50):  # ZMQ's slow joiner: publish until the subscription is live
            publisher.publish(events)
            if subscriber.poll(100):
                message = decode_frames(subscriber.recv_multipart())
                for event in message.batch.events:
                    if isinstance(event, BlockStored):
                        received += event.block_hashes
                break
    finally:
        publisher.close()
        subscriber.close(linger=0)
        context.term()
    hasher = PromptHasher(tokenizer, block_size=16, affinity_blocks=16, hash_seed="0")
    routed = hasher.blocks(messages, salt, whole_prompt=True).hashes
    assert len(routed) >= 5 and list(routed) == received
    assert hasher.blocks(messages, "other", whole_prompt=True).hashes[0] != received[0]


def test_router_hashes_at_most_max_prompt_blocks() -> None:
    from services.inference.router.keying import PromptHasher
    from services.inference.tokenization import OfflineTokenizer

    hasher = PromptHasher(
        OfflineTokenizer.from_file(),
        block_size=16,
        affinity_blocks=2,
        hash_seed="0",
        max_prompt_blocks=4,
    )
    messages = [{"role": "user", "content": "battery life " * 200}]
    whole = hasher.blocks(messages, None, whole_prompt=True)
    assert len(whole.hashes) == 4
    key_only = hasher.blocks(messages, None, whole_prompt=False)
    assert key_only.hashes == whole.hashes[:2] and key_only.prefix_key is not None
