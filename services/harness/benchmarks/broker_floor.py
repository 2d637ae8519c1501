"""The broker's floor for invalidation lag: a bare aiokafka consumer, one Redis INCR per record.

``cachecoh bench coherence`` runs this as a child process between worker phases, on the
same topic, broker, Redis and fetch wait as the worker: whatever lag it shows is what the
broker, the client library and one Redis round trip cost, so ``worker lag / floor`` is the
worker's own share. It starts at the end of every partition, prints ``ready`` once
positioned, consumes ``--count`` records and writes their lags (event ``time`` → INCR
acknowledged) and its CPU time as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from datetime import datetime
from pathlib import Path

import redis.asyncio as aioredis
from aiokafka import AIOKafkaConsumer, TopicPartition


async def consume(
    *,
    bootstrap: str,
    topic: str,
    partitions: int,
    redis_url: str,
    counter_key: str,
    count: int,
    fetch_max_wait_ms: int,
    timeout_s: float,
) -> dict[str, object]:
    client = aioredis.Redis.from_url(redis_url)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        fetch_max_wait_ms=fetch_max_wait_ms,
    )
    await consumer.start()
    lags_ms: list[float] = []
    try:
        assigned = [TopicPartition(topic, p) for p in range(partitions)]
        consumer.assign(assigned)
        await consumer.seek_to_end(*assigned)
        for tp in assigned:
            await consumer.position(tp)  # resolve now, not at the first fetch
        await client.ping()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        cpu_started = time.process_time()
        deadline = time.monotonic() + timeout_s
        while len(lags_ms) < count and time.monotonic() < deadline:
            message = await consumer.getone()
            await client.incr(counter_key)
            done = time.time()
            if message.value is None:
                continue
            sent = datetime.fromisoformat(json.loads(message.value)["time"]).timestamp()
            lags_ms.append(max(0.0, done - sent) * 1000.0)
        cpu_s = time.process_time() - cpu_started
    finally:
        await consumer.stop()
        await client.aclose()
    return {"lags_ms": lags_ms, "cpu_seconds": cpu_s}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--counter-key", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--fetch-max-wait-ms", type=int, required=True)
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    report = asyncio.run(
        consume(
            bootstrap=args.bootstrap,
            topic=args.topic,
            partitions=args.partitions,
            redis_url=args.redis_url,
            counter_key=args.counter_key,
            count=args.count,
            fetch_max_wait_ms=args.fetch_max_wait_ms,
            timeout_s=args.timeout_s,
        )
    )
    args.out.write_text(json.dumps(report))


if __name__ == "__main__":
    main()
