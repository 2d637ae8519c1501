"""``cachecoh bench gateway``: hit-path throughput and latency, and miss-path overhead.

Everything runs on this machine: the offline engine (upstream) and the gateway as child
processes (the gateway on uvloop + httptools, one worker), Redis (the configured one,
under a private key prefix removed afterwards), a SQLite spec store in a temporary
directory, and this process as the client (keep-alive HTTP/1.1 on asyncio, see
``services.harness.benchmarks.http_client``).

Phases, each after a warm-up:

1. **request-layer hits**: the warmed questions re-sent byte for byte, at ``concurrency``
   clients and then at 1 client, then the same as streamed requests (``stream: true``,
   the stored answer replayed as SSE chunks);
2. **semantic-layer hits**: the request layer switched off through the admin API, and
   paraphrases of the warmed questions (labelled dev queries of the same answer class)
   sent, at ``concurrency`` and at 1;
3. **miss path**: ``Cache-Control: no-cache`` requests in distinct namespaces (every one
   goes upstream and fills both layers) at 1 client; the overhead is the gateway's own
   time minus the upstream call's, both from the gateway's ``Server-Timing`` header.

Every response of a hit phase is checked to be a hit of the expected layer; a phase
that got anything else reports it under ``unexpected``. Each phase also reports the
gateway processes' CPU time per request (user + system, from ``/proc`` via psutil), and
the machine's load average when it started: the machine is shared.

``workers`` > 1 starts that many gateway processes on one port (``SO_REUSEPORT``, the
kernel spreads connections). ``gateway_src`` runs the gateway (and engine) from another
checkout, so a before/after comparison uses the same load generator.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson
import psutil
import redis
from rich.console import Console
from rich.progress import Progress

from services.adapters.embedded_broker import free_port
from services.core.semantic.fingerprint import Fingerprint
from services.harness.benchmarks.http_client import KeepAliveClient
from services.harness.checks.report import percentile
from services.inference.launcher import LaunchError, ManagedProcess, start_engine, wait_healthy
from services.paths import DEMO_DATA_DIR
from services.semantic.loading import load_semantic_extractor

MODEL = "cachecoh-offline"
API_KEY = "sk-bench-" + "0" * 24
TARGET_HIT_RPS = 8000.0
TARGET_P99_MS_ONE_CLIENT = 3.0
TARGET_CPU_MS_PER_HIT = 0.12
TARGET_TWO_WORKER_SPEEDUP = 1.8
_PROGRESS_EVERY = 100


@dataclass(frozen=True, slots=True)
class GatewayBenchConfig:
    concurrency: int = 32
    hit_requests: int = 20_000
    single_client_requests: int = 3_000
    miss_requests: int = 300
    questions: int = 200
    redis_url: str = "redis://127.0.0.1:6379/0"
    data_dir: Path = DEMO_DATA_DIR
    workers: int = 1
    #: Another checkout whose gateway is measured (a before/after run); None: this one.
    gateway_src: Path | None = None
    #: Where py-spy flame graphs of the concurrent hit phases go; None: not profiled.
    profile_dir: Path | None = None
    #: Seconds of a ``wrk`` cross-check of request-layer hits (0: none).
    wrk_seconds: int = 0


@dataclass(frozen=True, slots=True)
class CpuShares:
    """Where the machine's CPU went during a phase, in cores (CPU-seconds per second of
    the phase): with two cores, gateway + Redis + load generator + others ≤ 2."""

    #: Each gateway worker, in start order.
    gateways: tuple[float, ...]
    #: The Redis server (None: not a local process); it is shared with other users of it.
    redis: float | None
    #: The process generating the load (this one, or ``wrk``).
    load_generator: float
    #: Every process on the machine (``/proc/stat``), and what is nobody's above.
    machine: float
    others: float
    cores: int
    #: Established client connections each worker held at the end (``SO_REUSEPORT``
    #: spreads them by a hash of the connection's addresses).
    connections: tuple[int, ...]
    #: Hits per CPU-second of all gateway processes: throughput per unit of the CPU the
    #: gateway got, which is what more workers can scale when the cores are saturated.
    hits_per_gateway_cpu_s: float
    #: The machine was ≥ 90 % busy: the phase's req/s is the machine's limit, not the
    #: gateway's, and more workers can only take CPU from Redis and the load generator.
    saturated: bool = False


@dataclass(frozen=True, slots=True)
class PhaseResult:
    clients: int
    requests: int
    seconds: float
    req_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    unexpected: int
    #: Gateway processes' CPU time (user + system) per request, milliseconds.
    cpu_ms_per_request: float
    load_average_1m: float
    cpu: CpuShares | None = None


@dataclass(frozen=True, slots=True)
class MissResult:
    requests: int
    overhead_p50_ms: float
    overhead_p99_ms: float
    overhead_mean_ms: float
    upstream_p50_ms: float
    client_p50_ms: float


@dataclass(frozen=True, slots=True)
class WrkResult:
    connections: int
    seconds: int
    req_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    cpu_ms_per_request: float
    load_average_1m: float
    cpu: CpuShares | None = None


@dataclass
class GatewayBenchReport:
    config: dict[str, Any]
    request_layer: dict[str, PhaseResult] = field(default_factory=dict)
    streamed: dict[str, PhaseResult] = field(default_factory=dict)
    semantic_layer: dict[str, PhaseResult] = field(default_factory=dict)
    miss_path: MissResult | None = None
    #: ``wrk`` against the same warmed request-layer hits (``wrk_seconds`` > 0).
    wrk: dict[str, WrkResult] = field(default_factory=dict)
    targets: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "request_layer": {k: asdict(v) for k, v in self.request_layer.items()},
            "streamed": {k: asdict(v) for k, v in self.streamed.items()},
            "semantic_layer": {k: asdict(v) for k, v in self.semantic_layer.items()},
            "miss_path": asdict(self.miss_path) if self.miss_path else None,
            "wrk": {k: asdict(v) for k, v in self.wrk.items()},
            "targets": self.targets,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _workload(data_dir: Path, questions: int) -> tuple[list[str], list[str]]:
    """Warm-up questions (one per answer class) and paraphrases of the same classes."""
    extractor = load_semantic_extractor(data_dir)
    rows = [
        json.loads(line)
        for line in (data_dir / "queries_dev.jsonl").read_text("utf-8").splitlines()
        if line
    ]
    by_class: dict[str, list[str]] = {}
    for row in rows:
        if not row.get("cacheable"):
            continue
        decision = extractor.decide(row["text"])
        if isinstance(decision, Fingerprint):
            by_class.setdefault(decision.canonical, []).append(row["text"])
    classes = sorted(by_class)[:questions]
    warm = [by_class[c][0] for c in classes]
    paraphrases = [text for c in classes for text in by_class[c]]
    return warm, paraphrases


def _body(question: str, **extra: Any) -> bytes:
    return orjson.dumps(
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": question}],
            "temperature": 0,
            "max_tokens": 64,
            **extra,
        }
    )


@dataclass(frozen=True, slots=True)
class Gateways:
    """The measured gateway processes (CPU accounting, optional profiling)."""

    processes: Sequence[psutil.Process]
    profile_dir: Path | None = None
    port: int = 0
    redis: psutil.Process | None = None

    def cpu_seconds(self) -> float:
        return sum(_cpu_seconds(process) for process in self.processes)

    def meter(self) -> CpuMeter:
        """Start measuring every process's share of the CPU (see :class:`CpuShares`)."""
        return CpuMeter(self)

    def connections(self) -> tuple[int, ...]:
        counts = []
        for process in self.processes:
            counts.append(
                sum(
                    1
                    for c in process.net_connections(kind="tcp")
                    if c.status == psutil.CONN_ESTABLISHED and c.laddr and c.laddr.port == self.port
                )
            )
        return tuple(counts)

    def profile(self, name: str, seconds: int) -> list[subprocess.Popen[bytes]]:
        """py-spy recorders of every gateway process for ``seconds`` (flame graph SVGs)."""
        if self.profile_dir is None:
            return []
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        py_spy = Path(sys.executable).with_name("py-spy")
        return [
            subprocess.Popen(  # noqa: S603 - py-spy of our own venv, our own child pid
                [
                    str(py_spy),
                    "record",
                    "--pid",
                    str(process.pid),
                    "--duration",
                    str(seconds),
                    "--rate",
                    "250",
                    "--nonblocking",
                    "--output",
                    str(self.profile_dir / f"{name}-{index}.svg"),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for index, process in enumerate(self.processes)
        ]


def _cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def _children_cpu_seconds() -> float:
    # wrk's CPU time, once it is reaped (a child's time is only counted then).
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _machine_busy_seconds() -> float:
    """CPU-seconds every process on the machine used since boot (``/proc/stat``)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _redis_process(redis_url: str) -> psutil.Process | None:
    """The local process listening on the Redis URL's port, when there is one."""
    parsed = urlparse(redis_url)
    if parsed.scheme != "redis" or parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
        return None
    port = parsed.port or 6379
    try:
        for connection in psutil.net_connections(kind="tcp"):
            if (
                connection.status == psutil.CONN_LISTEN
                and connection.laddr
                and connection.laddr.port == port
                and connection.pid is not None
            ):
                return psutil.Process(connection.pid)
    except psutil.Error:
        return None
    return None


class CpuMeter:
    """CPU time of the gateways, Redis, the load generator and the machine between its
    start and :meth:`shares`."""

    def __init__(self, gateways: Gateways) -> None:
        self._gateways = gateways
        self._me = psutil.Process()
        self._started = time.perf_counter()
        self._workers = [_cpu_seconds(p) for p in gateways.processes]
        self._redis = self._redis_seconds()
        self._me_s = _cpu_seconds(self._me)
        self._children = _children_cpu_seconds()
        self._machine = _machine_busy_seconds()

    def _redis_seconds(self) -> float | None:
        redis_process = self._gateways.redis
        if redis_process is None:
            return None
        try:
            return _cpu_seconds(redis_process)
        except psutil.Error:
            return None

    def shares(self, hits: int) -> CpuShares:
        wall = max(time.perf_counter() - self._started, 1e-9)
        workers = [
            _cpu_seconds(p) - before
            for p, before in zip(self._gateways.processes, self._workers, strict=True)
        ]
        redis_now = self._redis_seconds()
        redis_s = (
            redis_now - self._redis if redis_now is not None and self._redis is not None else None
        )
        load = (_cpu_seconds(self._me) - self._me_s) + (_children_cpu_seconds() - self._children)
        machine = _machine_busy_seconds() - self._machine
        ours = sum(workers) + (redis_s or 0.0) + load
        gateway_s = sum(workers)
        return CpuShares(
            gateways=tuple(round(w / wall, 3) for w in workers),
            redis=round(redis_s / wall, 3) if redis_s is not None else None,
            load_generator=round(load / wall, 3),
            machine=round(machine / wall, 3),
            others=round(max(0.0, machine - ours) / wall, 3),
            cores=os.cpu_count() or 1,
            connections=self._gateways.connections(),
            hits_per_gateway_cpu_s=round(hits / gateway_s, 1) if gateway_s > 0 else 0.0,
            saturated=machine / wall >= 0.9 * (os.cpu_count() or 1),
        )


async def _run_phase(
    client: KeepAliveClient,
    bodies: Sequence[bytes],
    *,
    requests: int,
    clients: int,
    expect: str,
    progress: Progress,
    label: str,
    gateways: Gateways,
    profile_as: str | None = None,
) -> PhaseResult:
    latencies: list[float] = []
    unexpected = 0
    task = progress.add_task(label, total=requests)
    counter = iter(range(requests))

    async def worker() -> None:
        nonlocal unexpected
        done = 0
        for index in counter:
            status, headers, elapsed = await client.post(bodies[index % len(bodies)])
            latencies.append(elapsed)
            if status != 200 or not headers.get("x-cache", "").startswith(expect):
                unexpected += 1
            done += 1
            if done == _PROGRESS_EVERY:
                # The client shares the cores it measures: the bar moves in steps.
                progress.advance(task, done)
                done = 0
        progress.advance(task, done)

    load = os.getloadavg()[0]
    recorders = gateways.profile(profile_as, 8) if profile_as else []
    cpu_before = gateways.cpu_seconds()
    meter = gateways.meter()
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    seconds = time.perf_counter() - started
    cpu = gateways.cpu_seconds() - cpu_before
    shares = meter.shares(requests)
    for recorder in recorders:
        await asyncio.to_thread(recorder.wait)
    latencies.sort()
    return PhaseResult(
        clients=clients,
        requests=requests,
        seconds=round(seconds, 3),
        req_per_s=round(requests / seconds, 1),
        p50_ms=round(percentile(latencies, 0.50) * 1000, 3),
        p90_ms=round(percentile(latencies, 0.90) * 1000, 3),
        p99_ms=round(percentile(latencies, 0.99) * 1000, 3),
        max_ms=round(latencies[-1] * 1000, 3),
        unexpected=unexpected,
        cpu_ms_per_request=round(cpu * 1000 / requests, 4),
        load_average_1m=round(load, 2),
        cpu=shares,
    )


_WRK_SCRIPT = """
local bodies = {%s}
local requests = {}
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %s"
init = function(args)
  for n, body in ipairs(bodies) do requests[n] = wrk.format(nil, nil, nil, body) end
end
request = function()
  i = i %% #requests + 1
  return requests[i]
end
"""


def _wrk_duration_ms(text: str) -> float:
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}
    for unit in ("us", "ms", "s", "m"):
        if text.endswith(unit) and text[: -len(unit)].replace(".", "", 1).isdigit():
            return float(text[: -len(unit)]) * units[unit]
    raise ValueError(f"not a wrk duration: {text!r}")


async def _wrk_phase(
    url: str,
    questions: Sequence[str],
    *,
    connections: int,
    seconds: int,
    gateways: Gateways,
    script_dir: Path,
) -> WrkResult:
    """``wrk`` (one thread: the machine has two cores) posting the warmed questions."""
    bodies = ", ".join("[==[" + _body(q).decode() + "]==]" for q in questions)
    script = script_dir / "hits.lua"
    script.write_text(_WRK_SCRIPT % (bodies, API_KEY), "utf-8")
    load = os.getloadavg()[0]
    cpu_before = gateways.cpu_seconds()
    meter = gateways.meter()
    connections_seen: list[tuple[int, ...]] = []

    async def look_at_connections() -> None:
        # wrk holds its connections until it ends: count them half-way through.
        await asyncio.sleep(seconds / 2)
        connections_seen.append(gateways.connections())

    looking = asyncio.create_task(look_at_connections())
    process = await asyncio.create_subprocess_exec(
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "-s",
        str(script),
        f"{url}/v1/chat/completions",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    cpu = gateways.cpu_seconds() - cpu_before
    await looking
    text = out.decode()
    numbers: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("50%", "99%"):
            numbers[parts[0]] = parts[1]
        elif line.startswith("Requests/sec:"):
            numbers["rps"] = parts[1]
        elif "requests in" in line:
            numbers["total"] = parts[0]
        elif line.strip().startswith("Non-2xx"):
            numbers["non_2xx"] = parts[-1]
    if "rps" not in numbers:
        raise RuntimeError(f"wrk failed: {text}")
    total = max(1, int(numbers.get("total", "1")))
    shares = meter.shares(total)
    if connections_seen:
        shares = replace(shares, connections=connections_seen[0])
    return WrkResult(
        connections=connections,
        seconds=seconds,
        req_per_s=float(numbers["rps"]),
        p50_ms=round(_wrk_duration_ms(numbers["50%"]), 3),
        p99_ms=round(_wrk_duration_ms(numbers["99%"]), 3),
        non_2xx=int(numbers.get("non_2xx", "0")),
        cpu_ms_per_request=round(cpu * 1000 / total, 4),
        load_average_1m=round(load, 2),
        cpu=shares,
    )


def _server_timing(header: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in header.split(","):
        name, _, rest = part.strip().partition(";dur=")
        if rest:
            out[name] = float(rest)
    return out


async def _miss_phase(
    client: KeepAliveClient, warm: Sequence[str], requests: int, progress: Progress
) -> MissResult:
    overheads: list[float] = []
    upstream: list[float] = []
    observed: list[float] = []
    task = progress.add_task("miss path, 1 client", total=requests)
    for index in range(requests):
        headers = {"cache-control": "no-cache", "x-cache-namespace": f"miss-{index}"}
        status, response_headers, elapsed = await client.post(
            client.request(_body(warm[index % len(warm)]), headers)
        )
        timing = _server_timing(response_headers.get("server-timing", ""))
        if status == 200 and "gateway" in timing and "upstream" in timing:
            overheads.append(timing["gateway"] - timing["upstream"])
            upstream.append(timing["upstream"])
            observed.append(elapsed * 1000)
        progress.advance(task)
    overheads.sort()
    upstream.sort()
    observed.sort()
    return MissResult(
        requests=len(overheads),
        overhead_p50_ms=round(percentile(overheads, 0.5), 3),
        overhead_p99_ms=round(percentile(overheads, 0.99), 3),
        overhead_mean_ms=round(statistics.fmean(overheads), 3) if overheads else 0.0,
        upstream_p50_ms=round(percentile(upstream, 0.5), 3),
        client_p50_ms=round(percentile(observed, 0.5), 3),
    )


def _start_gateway(
    port: int, settings: dict[str, Any], log_path: Path, *, reuse_port: bool, src: Path | None
) -> tuple[subprocess.Popen[bytes], Any]:
    log = log_path.open("wb")
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, "-m", "services.gateway", json.dumps(settings)]
    if reuse_port:
        command.append("--reuse-port")
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        command,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=src,
    )
    return process, log


def _wait_gateway(url: str, process: subprocess.Popen[bytes], log_path: Path, *, port: int) -> None:
    """Until ``process`` listens on ``port`` (with several workers another one may answer
    the health check first) and the gateway answers it."""
    deadline = time.monotonic() + 60
    watched = psutil.Process(process.pid)
    with httpx.Client(timeout=1.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LaunchError("gateway", "exited during start-up", log_path)
            try:
                listening = any(
                    c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
                    for c in watched.net_connections(kind="tcp")
                )
                if listening and client.get(url + "/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
    raise LaunchError("gateway", "not healthy after 60 s", log_path)


def _drop_keys(redis_url: str, prefix: str) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        # Bench teardown only: remove the run's private prefix.
        batch = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for start in range(0, len(batch), 1000):
            client.unlink(*batch[start : start + 1000])
    finally:
        client.close()


async def _measure(
    url: str,
    admin_token: str,
    config: GatewayBenchConfig,
    report: GatewayBenchReport,
    gateways: Gateways,
) -> None:
    console = Console(stderr=True)
    warm, paraphrases = _workload(config.data_dir, config.questions)
    client = KeepAliveClient(url, API_KEY)
    warm_bodies = [client.request(_body(q)) for q in warm]
    streamed_bodies = [client.request(_body(q, stream=True)) for q in warm]
    paraphrase_bodies = [client.request(_body(q)) for q in paraphrases]
    concurrent = f"c{config.concurrency}"
    shapes = (
        (config.concurrency, config.hit_requests, concurrent),
        (1, config.single_client_requests, "c1"),
    )

    async def hits(
        bodies: list[bytes], expect: str, into: dict[str, PhaseResult], what: str, warm_up: int
    ) -> None:
        for clients, requests, name in shapes:
            await _run_phase(
                client,
                bodies,
                requests=warm_up,
                clients=clients,
                expect="",
                progress=progress,
                label="warm the hit path",
                gateways=gateways,
            )
            into[name] = await _run_phase(
                client,
                bodies,
                requests=requests,
                clients=clients,
                expect=expect,
                progress=progress,
                label=f"{what} hits, {clients} clients",
                gateways=gateways,
                profile_as=f"{what}-{name}" if clients > 1 else None,
            )

    try:
        with Progress(console=console, transient=True) as progress:
            warmed = await _run_phase(
                client,
                warm_bodies,
                requests=len(warm_bodies),
                clients=4,
                expect="",
                progress=progress,
                label="warm-up (fills)",
                gateways=gateways,
            )
            if warmed.unexpected:
                raise RuntimeError(f"{warmed.unexpected} warm-up requests failed")
            request_hit = "HIT; layer=request"
            await hits(warm_bodies, request_hit, report.request_layer, "request", 2000)
            await hits(streamed_bodies, request_hit, report.streamed, "streamed", 2000)
            if config.wrk_seconds > 0:
                # Only wrk's connections open while it runs (counted per worker).
                await client.close()
                with tempfile.TemporaryDirectory(prefix="cachecoh-wrk-") as scripts:
                    for connections in (config.concurrency, 1):
                        report.wrk[f"c{connections}"] = await _wrk_phase(
                            url,
                            warm,
                            connections=connections,
                            seconds=config.wrk_seconds,
                            gateways=gateways,
                            script_dir=Path(scripts),
                        )
            async with httpx.AsyncClient() as admin:
                switched = await admin.put(
                    f"{url}/admin/kill-switches/request",
                    json={"enabled": False},
                    headers={"authorization": f"Bearer {admin_token}"},
                )
                switched.raise_for_status()
            # Every replica re-reads the switches within kill_switch_refresh_s.
            await asyncio.sleep(1.2)
            await hits(
                paraphrase_bodies,
                "HIT; layer=semantic",
                report.semantic_layer,
                "semantic",
                len(paraphrase_bodies),
            )
            report.miss_path = await _miss_phase(client, warm, config.miss_requests, progress)
    finally:
        await client.close()


def run_gateway_bench(config: GatewayBenchConfig) -> GatewayBenchReport:
    """Start engine and gateway, measure, stop them, and remove the run's Redis keys."""
    prefix = f"bench-{secrets.token_hex(4)}"
    admin_token = secrets.token_hex(16)
    report = GatewayBenchReport(
        config={
            **asdict(config),
            "data_dir": str(config.data_dir),
            "gateway_src": str(config.gateway_src) if config.gateway_src else None,
            "profile_dir": str(config.profile_dir) if config.profile_dir else None,
            "redis_prefix": prefix,
            "load_average": list(os.getloadavg()),
        }
    )
    with tempfile.TemporaryDirectory(prefix="cachecoh-bench-") as tmp:
        work = Path(tmp)
        engine: ManagedProcess = start_engine(
            "engine", {"seconds_per_output_token": 0.0002}, log_dir=work
        )
        port = free_port()
        settings = {
            "host": "127.0.0.1",
            "port": port,
            "upstream_url": engine.url,
            "api_keys": json.dumps({API_KEY: "bench-tenant"}),
            "admin_token": admin_token,
            "request_key_secret": secrets.token_hex(16),
            "cache_salt_key": secrets.token_hex(16),
            "redis_url": config.redis_url,
            "redis_prefix": prefix,
            "database_url": f"sqlite:///{work / 'spec.db'}",
            "seed_spec_store": True,
            # No coherence worker here: nothing would set the replica lease.
            "replica_guard": False,
            "data_dir": str(config.data_dir),
            "log_level": "WARNING",
            # Hits never touch these; the miss phase uses one key per request anyway.
            "bucket_capacity": 1000,
            "breaker_misses_per_minute": 100_000,
            # The miss phase is one API key's no-cache requests: not what is measured here.
            "client_override_capacity": 100_000,
        }
        url = f"http://127.0.0.1:{port}"
        started: list[tuple[subprocess.Popen[bytes], Any]] = []
        try:
            wait_healthy([engine])
            # One after the other: the first one migrates and seeds the spec store, which
            # concurrent start-ups would race on.
            for index in range(config.workers):
                log_path = work / f"gateway-{index}.log"
                started.append(
                    _start_gateway(
                        port,
                        settings,
                        log_path,
                        reuse_port=config.workers > 1,
                        src=config.gateway_src,
                    )
                )
                _wait_gateway(url, started[-1][0], log_path, port=port)
            gateways = Gateways(
                [psutil.Process(process.pid) for process, _ in started],
                config.profile_dir,
                port=port,
                redis=_redis_process(config.redis_url),
            )
            _event_loop_run(_measure(url, admin_token, config, report, gateways))
        finally:
            for process, log in started:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                log.close()
            engine.stop()
            _drop_keys(config.redis_url, prefix)
    report.targets = _targets(report, f"c{config.concurrency}")
    return report


def _targets(report: GatewayBenchReport, concurrent: str) -> dict[str, Any]:
    """Each hit phase against the issue's targets (throughput, 1-client p99, CPU)."""
    verdicts: dict[str, Any] = {
        "hit_req_per_s": TARGET_HIT_RPS,
        "hit_p99_ms_one_client": TARGET_P99_MS_ONE_CLIENT,
        "cpu_ms_per_hit": TARGET_CPU_MS_PER_HIT,
        "two_worker_speedup": TARGET_TWO_WORKER_SPEEDUP,
    }
    for name, phases in (
        ("request_layer", report.request_layer),
        ("semantic_layer", report.semantic_layer),
        ("streamed", report.streamed),
    ):
        busy, single = phases.get(concurrent), phases.get("c1")
        verdicts[f"{name}_meets_rps"] = bool(busy and busy.req_per_s >= TARGET_HIT_RPS)
        verdicts[f"{name}_meets_p99"] = bool(single and single.p99_ms <= TARGET_P99_MS_ONE_CLIENT)
        verdicts[f"{name}_meets_cpu"] = bool(
            busy and busy.cpu_ms_per_request <= TARGET_CPU_MS_PER_HIT
        )
        verdicts[f"{name}_meets_cpu_one_client"] = bool(
            single and single.cpu_ms_per_request <= TARGET_CPU_MS_PER_HIT
        )
    return verdicts


def _event_loop_run(coro: Any) -> None:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is installed with uvicorn[standard]
        asyncio.run(coro)
        return
    uvloop.run(coro)


def _phases(report: GatewayBenchReport) -> list[tuple[str, PhaseResult | WrkResult]]:
    named: list[tuple[str, PhaseResult | WrkResult]] = []
    for layer, phases in (
        ("request", report.request_layer),
        ("streamed", report.streamed),
        ("semantic", report.semantic_layer),
        ("wrk", report.wrk),
    ):
        named.extend((f"{layer} {clients}", phase) for clients, phase in phases.items())
    return named


def render_text(report: GatewayBenchReport) -> str:
    lines = [
        "layer      clients   req/s     p50 ms   p99 ms   cpu ms/hit  load  unexpected",
    ]
    for name, phases in (
        ("request", report.request_layer),
        ("streamed", report.streamed),
        ("semantic", report.semantic_layer),
    ):
        for phase in phases.values():
            lines.append(
                f"{name:<10} {phase.clients:>7} {phase.req_per_s:>9.1f} {phase.p50_ms:>8.3f} "
                f"{phase.p99_ms:>8.3f} {phase.cpu_ms_per_request:>11.4f} "
                f"{phase.load_average_1m:>5.2f} {phase.unexpected:>10}"
            )
    for wrk in report.wrk.values():
        lines.append(
            f"{'wrk':<10} {wrk.connections:>7} {wrk.req_per_s:>9.1f} {wrk.p50_ms:>8.3f} "
            f"{wrk.p99_ms:>8.3f} {wrk.cpu_ms_per_request:>11.4f} "
            f"{wrk.load_average_1m:>5.2f} {wrk.non_2xx:>10}"
        )
    lines.append(
        "CPU, in cores (CPU-s per s): gateway workers | Redis | load generator | others "
        "(machine of N cores); connections per worker; hits per gateway CPU-second"
    )
    for label, measured in _phases(report):
        if measured.cpu is None:
            continue
        c = measured.cpu
        workers = " + ".join(f"{w:.2f}" for w in c.gateways)
        redis_cores = f"{c.redis:.2f}" if c.redis is not None else "-"
        lines.append(
            f"  {label:<14} {workers} | {redis_cores} | {c.load_generator:.2f} | {c.others:.2f} "
            f"({c.machine:.2f} of {c.cores}); {'/'.join(map(str, c.connections))}; "
            f"{c.hits_per_gateway_cpu_s:,.0f}{' (machine saturated)' if c.saturated else ''}"
        )
    if report.miss_path:
        m = report.miss_path
        lines.append(
            f"miss path: overhead p50 {m.overhead_p50_ms:.3f} ms, p99 {m.overhead_p99_ms:.3f} ms "
            f"(upstream p50 {m.upstream_p50_ms:.3f} ms)"
        )
    return "\n".join(lines)
