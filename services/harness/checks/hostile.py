"""``cachecoh check hostile``: is work per request bounded, and does the gateway stay
responsive while clients misbehave? (promise 5, docs/isolation-and-load.md)

The check stack (``services.harness.checks.stack``: private Redis, the real gateway process, the
offline engine) runs on 127.0.0.1 and gets, one phase after the other:

1. **hostile mix** for ``seconds``: ``clients`` connections, half sending questions of
   8 KB letter runs (``aaaa…``; once 5.7 s of word segmentation each), half sending
   10 MB bodies (once they wedged the gateway). Meanwhile a separate process probes
   ``GET /health`` every ``probe_interval_s`` and records each latency: p50/p99 of those
   say whether the event loop stayed free.
2. **fuzz**: ``fuzz_requests`` generated bodies (seeded): wrong types in every field,
   deep nesting in parameters, content parts and ``metadata``, huge numbers, unusual and
   invalid Unicode, broken JSON, plus real questions. Every status is counted; any 5xx
   is a failure.

Resident memory of gateway and engine is sampled every 100 ms through both phases; the
peak must stay under ``rss_budget_mib``. The gateway's log must hold no traceback.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from rich.console import Console
from rich.progress import Progress

from services.core.openai_contract import ChatCompletionRequest
from services.harness.benchmarks.http_client import KeepAliveClient
from services.harness.checks.report import latency_summary
from services.harness.checks.stack import CheckStack, StackConfig, running_stack
from services.paths import DEMO_DATA_DIR

MIB = 1024 * 1024
HEALTH_P99_TARGET_MS = 50.0
LETTER_RUN = 8 * 1024
BIG_BODY = 10 * 1000 * 1000


@dataclass(frozen=True, slots=True)
class HostileConfig:
    seconds: float = 30.0
    clients: int = 4
    fuzz_requests: int = 100_000
    fuzz_concurrency: int = 16
    probe_interval_s: float = 0.01
    rss_budget_mib: float = 1024.0
    seed: int = 7
    keep_work_dir: bool = False


# -- the fuzzer (seeded; cheap enough for 100,000 bodies) -------------------------------

#: Every field of the chat contract: each one gets wrong types, huge numbers and odd text.
_FIELDS = tuple(ChatCompletionRequest.model_fields)
#: The numeric parameters (huge numbers go there, and into an unknown field).
_NUMERIC_FIELDS = tuple(
    name
    for name, info in ChatCompletionRequest.model_fields.items()
    if any(t in str(info.annotation) for t in ("int", "float"))
)
_ODD_TEXT = (
    "\u202eevil\u202c",
    "\ufeff\u200b\u200c\u200d",
    "\x00\x07\x1b[31m",
    "\U0001d55a\U0001d561\U0001d559\U0001d560\U0001d55f\U0001d556 \U0001f50b",
    "\ufffe\uffff\U0010ffff",
    "e\u0301\u0301\u0301\u0301\u0301",
    "\ue000\uf8ff",
    "\u0000" * 40,
    "𠀀𠀁𠀂" * 30,
    "ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ",
)
#: Raw JSON numbers orjson, pydantic and the canonical form must all survive.
_HUGE_NUMBERS = (
    "1e999",
    "-1e400",
    "1.7976931348623157e309",
    "5e-324",
    "18446744073709551616",
    "-9223372036854775809",
    "9" * 400,
    "-0",
    "0.000000000000000000000000000001",
    "123456789012345678901234567890.5",
)


class BodyFuzzer:
    """Request bodies (bytes) of the kinds that once made the gateway answer 500."""

    def __init__(self, seed: int, questions: list[str]) -> None:
        self._random = random.Random(seed)  # noqa: S311 - a reproducible workload
        self._questions = questions
        self._kinds: tuple[Callable[[], bytes], ...] = (
            self._valid,
            self._wrong_type,
            self._deep,
            self._huge_number,
            self._odd_unicode,
            self._invalid_utf8,
            self._broken_json,
            self._odd_message,
        )

    def body(self) -> bytes:
        return self._random.choice(self._kinds)()

    def _base(self) -> dict[str, Any]:
        return {
            "model": "cachecoh-offline",
            "messages": [{"role": "user", "content": self._random.choice(self._questions)}],
            "temperature": 0,
            "max_tokens": 32,
        }

    def _value(self, depth: int = 0) -> Any:
        r = self._random
        choice = r.randrange(9 if depth < 3 else 6)
        if choice == 0:
            return None
        if choice == 1:
            return r.choice([True, False])
        if choice == 2:
            return r.choice([0, -1, 1, 2**31, -(2**63), 2**63 - 1, 2**64 - 1, 3.5, -2.5])
        if choice == 3:
            return r.choice(["", "yes", "no", "true", "0", "1e3", "text", "user", "NaN"])
        if choice == 4:
            return r.choice(_ODD_TEXT)
        if choice == 5:
            return r.choice(["stop", "length", "auto", "none", "json_object"])
        if choice == 6:
            return [self._value(depth + 1) for _ in range(r.randrange(4))]
        if choice == 7:
            return {r.choice(_FIELDS): self._value(depth + 1) for _ in range(r.randrange(4))}
        return {"type": r.choice(["text", "image_url", ""]), "text": self._value(depth + 1)}

    def _valid(self) -> bytes:
        body = self._base()
        if self._random.random() < 0.3:
            body["stream"] = True
        return json.dumps(body).encode()

    def _wrong_type(self) -> bytes:
        body = self._base()
        for name in self._random.sample(_FIELDS, self._random.randint(1, 3)):
            body[name] = self._value()
        return json.dumps(body).encode()

    def _deep(self) -> bytes:
        r = self._random
        depth = r.choice([30, 63, 64, 65, 100, 255, 260, 300, 1000, 1100, 5000])
        opener, closer = r.choice([("[", "]"), ('{"k":', "}")])
        nested = opener * depth + "1" + closer * depth
        base = json.dumps(self._base())[:-1]
        where = r.choice(["param", "metadata", "part", "tools"])
        if where == "param":
            return f'{base}, "x": {nested}}}'.encode()
        if where == "metadata":
            return f'{base}, "metadata": {{"m": {nested}}}}}'.encode()
        if where == "tools":
            return f'{base}, "tools": [{{"type": "function", "function": {nested}}}]}}'.encode()
        part = f'{{"type": "text", "text": "q", "extra": {nested}}}'
        message = f'{{"role": "user", "content": [{part}]}}'
        return f'{{"model": "cachecoh-offline", "messages": [{message}]}}'.encode()

    def _huge_number(self) -> bytes:
        r = self._random
        base = json.dumps(self._base())[:-1]
        field = r.choice([*_NUMERIC_FIELDS, "x"])
        return f'{base}, "{field}": {r.choice(_HUGE_NUMBERS)}}}'.encode()

    def _odd_unicode(self) -> bytes:
        r = self._random
        text = "".join(
            r.choice([r.choice(_ODD_TEXT), chr(r.randrange(0x110000))]) for _ in range(8)
        )
        body = self._base()
        body["messages"][0]["content"] = text
        if r.random() < 0.5:
            body[r.choice(["user", "model", "cache_salt", text[:4] or "k"])] = text
        # ensure_ascii escapes lone surrogates as \ud800; raw, they are invalid UTF-8.
        if r.random() < 0.5:
            return json.dumps(body).encode()
        return json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")

    def _invalid_utf8(self) -> bytes:
        body = json.dumps(self._base()).encode()
        at = self._random.randrange(len(body))
        return (
            body[:at]
            + self._random.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"])
            + body[at:]
        )

    def _broken_json(self) -> bytes:
        r = self._random
        body = json.dumps(self._base()).encode()
        return r.choice(
            [
                body[: r.randrange(len(body))],
                body + b"garbage",
                b"",
                b"null",
                b"[]",
                b'"a string"',
                b"{" * 2000,
                body.replace(b":", b"=", 1),
                b'{"model": "cachecoh-offline", "model": 1, "messages": []}',
            ]
        )

    def _odd_message(self) -> bytes:
        r = self._random
        message: dict[str, Any] = {"role": "user", "content": r.choice(self._questions)}
        key = r.choice(["role", "content", "name", "tool_calls", "tool_call_id"])
        message[key] = self._value()
        body = self._base()
        body["messages"] = r.choice([[message], [message, message], [{}], [[]], [None], "x"])
        return json.dumps(body).encode()


# -- probes and samplers ---------------------------------------------------------------


def probe_health(url: str, seconds: float, interval_s: float, out: Any) -> None:
    """In a separate process (its timing is not the load generator's): GET /health
    every ``interval_s`` over one keep-alive connection; sends the latencies to ``out``."""
    import http.client

    host, port = url.removeprefix("http://").split(":")
    latencies: list[float] = []
    errors = 0
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        try:
            connection.request("GET", "/health")
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors += 1
        except (OSError, http.client.HTTPException):
            errors += 1
            connection.close()
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
        latencies.append(time.perf_counter() - started)
        time.sleep(interval_s)
    connection.close()
    out.send((latencies, errors))
    out.close()


class RssSampler:
    """Peak resident memory of some processes, sampled every 100 ms in a thread."""

    def __init__(self, pids: dict[str, int]) -> None:
        self._processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peak = {name: 0 for name in pids}
        self.start = {name: self._rss(p) for name, p in self._processes.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _rss(process: psutil.Process) -> int:
        try:
            return int(process.memory_info().rss)
        except psutil.Error:
            return 0

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            for name, process in self._processes.items():
                self.peak[name] = max(self.peak[name], self._rss(process))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


# -- the phases ------------------------------------------------------------------------


async def _hostile_mix(
    stack: CheckStack, config: HostileConfig, key: str, progress: Progress
) -> dict[str, Any]:
    client = KeepAliveClient(stack.gateway_url, key)
    letters = client.request(
        json.dumps(
            {
                "model": "cachecoh-offline",
                "messages": [{"role": "user", "content": "a" * LETTER_RUN}],
                "temperature": 0,
                "max_tokens": 16,
            }
        ).encode()
    )
    # A body the gateway must refuse unread: 10 MB, declared in content-length.
    big = client.request(b'{"model": "cachecoh-offline", "messages": [' + b" " * BIG_BODY + b"]}")
    statuses: dict[str, Counter[int]] = {"letter_runs": Counter(), "big_bodies": Counter()}
    failures: Counter[str] = Counter()
    deadline = time.monotonic() + config.seconds
    task = progress.add_task("hostile mix", total=config.seconds)

    async def sender(kind: str, raw: bytes) -> None:
        own = KeepAliveClient(stack.gateway_url, key)
        try:
            while time.monotonic() < deadline:
                try:
                    reply = await own.exchange(raw)
                except (ConnectionError, OSError) as exc:
                    failures[f"{kind}: {type(exc).__name__}"] += 1
                    await asyncio.sleep(0.05)
                    continue
                statuses[kind][reply.status] += 1
        finally:
            await own.close()

    async def ticker() -> None:
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            progress.update(task, completed=config.seconds - max(0.0, deadline - time.monotonic()))

    kinds = [
        ("letter_runs", letters) if i % 2 == 0 else ("big_bodies", big)
        for i in range(config.clients)
    ]
    await asyncio.gather(ticker(), *(sender(kind, raw) for kind, raw in kinds))
    await client.close()
    return {
        "statuses": {kind: dict(sorted(counts.items())) for kind, counts in statuses.items()},
        "connection_failures": dict(failures),
    }


async def _fuzz(
    stack: CheckStack, config: HostileConfig, key: str, progress: Progress
) -> dict[str, Any]:
    questions = [
        json.loads(line)["text"]
        for line in (DEMO_DATA_DIR / "queries_dev.jsonl").read_text("utf-8").splitlines()[:300]
    ]
    fuzzer = BodyFuzzer(config.seed, questions)
    client = KeepAliveClient(stack.gateway_url, key)
    statuses: Counter[int] = Counter()
    server_errors: list[str] = []
    failures: Counter[str] = Counter()
    remaining = config.fuzz_requests
    task = progress.add_task("fuzzed requests", total=config.fuzz_requests)

    async def worker() -> None:
        nonlocal remaining
        own = KeepAliveClient(stack.gateway_url, key)
        try:
            while remaining > 0:
                remaining -= 1
                body = fuzzer.body()
                try:
                    reply = await own.exchange(client.request(body))
                except (ConnectionError, OSError) as exc:
                    failures[type(exc).__name__] += 1
                    continue
                statuses[reply.status] += 1
                if reply.status >= 500 and len(server_errors) < 20:
                    server_errors.append(f"{reply.status} {reply.body[:160]!r} <- {body[:160]!r}")
                progress.advance(task)
        finally:
            await own.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(config.fuzz_concurrency)))
    elapsed = time.perf_counter() - started
    await client.close()
    return {
        "requests": sum(statuses.values()),
        "seconds": round(elapsed, 1),
        "statuses": dict(sorted(statuses.items())),
        "server_errors": sum(n for status, n in statuses.items() if status >= 500),
        "server_error_examples": server_errors,
        "connection_failures": dict(failures),
    }


def _tracebacks(log_path: Path | None) -> int:
    if log_path is None or not log_path.exists():
        return 0
    return log_path.read_text("utf-8", "replace").count("Traceback")


def run_hostile(config: HostileConfig) -> dict[str, Any]:
    stack_config = StackConfig(
        tenants=("tenant-hostile",),
        # The bucket and the breaker answer 429/503 by design; here they are set out of
        # reach, so every 5xx counted is an error.
        gateway_settings={"bucket_capacity": 1_000_000, "breaker_misses_per_minute": 10_000_000},
        redis_history=False,
        gateway_log_level="WARNING",
        keep_work_dir=config.keep_work_dir,
    )
    console = Console(stderr=True)
    with running_stack(stack_config) as stack:
        key = stack.api_keys["tenant-hostile"]
        gateway, engine = stack.stack.gateway, stack.stack.engines[0]
        assert gateway is not None
        pids = {"gateway": gateway.process.pid, "engine": engine.process.pid}
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        prober = context.Process(
            target=probe_health,
            args=(stack.gateway_url, config.seconds, config.probe_interval_s, sender),
            daemon=True,
        )
        with RssSampler(pids) as rss, Progress(console=console, transient=True) as progress:
            prober.start()
            mix = asyncio.run(_hostile_mix(stack, config, key, progress))
            latencies, probe_errors = receiver.recv()
            prober.join(30)
            fuzz = asyncio.run(_fuzz(stack, config, key, progress))
        tracebacks = _tracebacks(gateway.log_path)
    health = {"probes": len(latencies), "errors": probe_errors, **latency_summary(latencies)}
    peak_mib = {name: round(size / MIB, 1) for name, size in rss.peak.items()}
    passed = {
        "health_p99": health["p99_ms"] <= HEALTH_P99_TARGET_MS and probe_errors == 0,
        "no_5xx": fuzz["server_errors"] == 0
        and not any(s >= 500 for c in mix["statuses"].values() for s in c),
        "fuzz_requests": fuzz["requests"] >= config.fuzz_requests,
        "rss_bounded": all(v <= config.rss_budget_mib for v in peak_mib.values()),
        "no_tracebacks": tracebacks == 0,
    }
    return {
        "config": {
            "seconds": config.seconds,
            "clients": config.clients,
            "letter_run_bytes": LETTER_RUN,
            "big_body_bytes": BIG_BODY,
            "fuzz_requests": config.fuzz_requests,
            "fuzz_concurrency": config.fuzz_concurrency,
            "seed": config.seed,
        },
        "health_under_hostile_mix": health,
        "hostile_mix": mix,
        "fuzz": fuzz,
        "rss_mib": {
            "start": {name: round(size / MIB, 1) for name, size in rss.start.items()},
            "peak": peak_mib,
            "budget": config.rss_budget_mib,
        },
        "gateway_log_tracebacks": tracebacks,
        "targets": {"health_p99_ms": HEALTH_P99_TARGET_MS, **passed},
        "passed": all(passed.values()),
    }
