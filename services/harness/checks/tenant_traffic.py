"""The isolation check's traffic: who asks what, carrying what, and what came back.

Tenants ask the *same* questions (byte for byte, in the same namespace names, with the
same system prompts: 70 % from a hot set), so only the tenant separates their entries.
Mixed in, by seeded shares: personal data in every place a client can put it (question,
content parts, system message, earlier turns, two values per message, ``user``,
``metadata``), spoofing (another tenant's real ``cache_salt``, its id in tenant headers
and ``user``), questions the admission policy bypasses, conversations and streams. Every
``purge_every`` requests an admin purge of a random product makes entries stale mid-run.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from services.adapters.catalog_files import load_catalog
from services.harness.benchmarks.http_client import KeepAliveClient
from services.harness.checks.personal_data import (
    GENERATED_KINDS,
    PersonalDataFactory,
    PersonalValue,
    phrase_with,
)
from services.harness.checks.stack import MODEL, CheckStack
from services.harness.checks.upstream_ledger import answer_origin
from services.paths import DEMO_DATA_DIR

_NAMESPACES = ("", "", "", "support", "vip")
_SYSTEM_PROMPTS: tuple[str | None, ...] = (None,) * 8 + ("你是一名耐心的客服。", "Answer briefly.")
_HOT_QUESTIONS = 60
TENANT_HEADERS = ("x-tenant", "x-tenant-id", "openai-organization", "x-org-id")


class RequestKind(StrEnum):
    QUESTION = "question"
    CONVERSATION = "conversation"
    ADMISSION_BYPASS = "admission_bypass"
    PERSONAL_IN_MESSAGES = "personal_in_messages"
    PERSONAL_IN_PARAMS = "personal_in_params"
    SPOOF = "spoof"
    PROBE = "probe"


@dataclass(frozen=True, slots=True)
class TrafficShape:
    requests: int = 100_000
    seed: int = 7
    personal_share: float = 0.12
    spoof_share: float = 0.03
    admission_bypass_share: float = 0.04
    conversation_share: float = 0.03
    stream_share: float = 0.05
    purge_every: int = 5_000
    data_dir: Path = DEMO_DATA_DIR


@dataclass(frozen=True, slots=True)
class QuestionPool:
    cacheable: tuple[str, ...]
    not_cacheable: tuple[str, ...]
    products: tuple[str, ...]

    @classmethod
    def load(cls, data_dir: Path) -> QuestionPool:
        rows = [
            json.loads(line)
            for line in (data_dir / "queries_dev.jsonl").read_text("utf-8").splitlines()
            if line.strip()
        ]
        catalog = load_catalog(data_dir)
        return cls(
            cacheable=tuple(r["text"] for r in rows if r.get("cacheable")),
            not_cacheable=tuple(r["text"] for r in rows if not r.get("cacheable")),
            products=tuple(p.product_id for p in catalog.products),
        )


def legitimate_text(data_dir: Path) -> str:
    """Text the system holds on purpose (catalog, vocabulary, questions, templates)."""
    return "\n".join(
        path.read_text("utf-8")
        for path in sorted(data_dir.iterdir())
        if path.suffix in (".json", ".jsonl")
    )


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    tenant: int
    kind: RequestKind
    body: bytes
    headers: tuple[tuple[str, str], ...]
    #: What the request asks, as tenants share it: namespace, system prompt, question.
    slot: str
    #: Indexes of the personal values it carries (into ``TrafficPlan.values``).
    personal: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    tenant: int
    kind: RequestKind
    status: int
    cache: str
    cache_key: str | None
    completion_id: str | None
    slot: str
    personal: tuple[int, ...]

    @property
    def state(self) -> str:
        """HIT, MISS, STALE, BYPASS, or '' for an error response."""
        return self.cache.split(";", 1)[0].strip()


def chat_body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": messages, "temperature": 0, "max_tokens": 64, **extra}


class TrafficPlan:
    """The seeded request sequence; personal values are drawn as requests are planned."""

    def __init__(
        self,
        config: TrafficShape,
        tenants: Sequence[str],
        pool: QuestionPool,
        salts: Mapping[str, str],
    ) -> None:
        self.config = config
        self.tenants = tuple(tenants)
        self.pool = pool
        self.salts = dict(salts)
        self._random = random.Random(config.seed)  # noqa: S311 - a reproducible workload
        self.factory = PersonalDataFactory(
            config.seed, excluded_text=legitimate_text(config.data_dir)
        )
        self.values: list[PersonalValue] = []
        #: The bodies that carried personal data, for the scanner's control.
        self.personal_bodies: list[bytes] = []
        shuffled = list(pool.cacheable)
        self._random.shuffle(shuffled)
        self._hot = shuffled[:_HOT_QUESTIONS]

    def __iter__(self) -> Iterator[PlannedRequest]:
        for _ in range(self.config.requests):
            yield self.next()

    def _question(self) -> str:
        """Mostly the hot questions (asked by every tenant), sometimes any other."""
        if self._random.random() < 0.7:
            return self._random.choice(self._hot)
        return self._random.choice(self.pool.cacheable)

    def _value(self) -> tuple[int, PersonalValue]:
        value = self.factory.of_kind(self._random.choice(GENERATED_KINDS))
        self.values.append(value)
        return len(self.values) - 1, value

    def next(self) -> PlannedRequest:
        r = self._random
        c = self.config
        tenant = r.randrange(len(self.tenants))
        question = self._question()
        namespace = r.choice(_NAMESPACES)
        system = r.choice(_SYSTEM_PROMPTS)
        headers: list[tuple[str, str]] = []
        if namespace:
            headers.append(("x-cache-namespace", namespace))
        messages: list[dict[str, Any]] = []
        if system is not None:
            messages.append({"role": "system", "content": system})
        extra: dict[str, Any] = {}
        if r.random() < c.stream_share:
            extra["stream"] = True
        slot = f"{namespace}|{system}|{question}"
        roll = r.random()
        personal: tuple[int, ...] = ()
        kind = RequestKind.QUESTION
        if roll < c.personal_share:
            kind, personal = self._personal(messages, question, extra)
        elif roll < c.personal_share + c.spoof_share:
            kind = RequestKind.SPOOF
            messages.append({"role": "user", "content": question})
            headers.extend(self._spoof(tenant, extra))
        elif roll < c.personal_share + c.spoof_share + c.admission_bypass_share:
            kind = RequestKind.ADMISSION_BYPASS
            question = r.choice(self.pool.not_cacheable)
            slot = f"{namespace}|{system}|{question}"
            messages.append({"role": "user", "content": question})
        elif roll < (
            c.personal_share + c.spoof_share + c.admission_bypass_share + c.conversation_share
        ):
            kind = RequestKind.CONVERSATION
            earlier = r.choice(self._hot)
            messages += [
                {"role": "user", "content": earlier},
                {"role": "assistant", "content": "好的，已为您查询。"},
                {"role": "user", "content": question},
            ]
            slot = f"{namespace}|{system}|{earlier}|{question}"
        elif r.random() < 0.05:
            messages.append({"role": "user", "content": [{"type": "text", "text": question}]})
        else:
            messages.append({"role": "user", "content": question})
        body = orjson.dumps(chat_body(messages, **extra))
        if personal:
            self.personal_bodies.append(body)
        return PlannedRequest(tenant, kind, body, tuple(headers), slot, personal)

    def _personal(
        self, messages: list[dict[str, Any]], question: str, extra: dict[str, Any]
    ) -> tuple[RequestKind, tuple[int, ...]]:
        r = self._random
        first, value = self._value()
        place = r.randrange(7)
        if place == 0:
            messages.append({"role": "user", "content": phrase_with(value, question, r)})
        elif place == 1:
            text = phrase_with(value, question, r)
            messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
        elif place == 2:
            messages.insert(0, {"role": "system", "content": phrase_with(value, "请礼貌回答", r)})
            messages.append({"role": "user", "content": question})
        elif place == 3:
            messages += [
                {"role": "user", "content": phrase_with(value, "你好", r)},
                {"role": "assistant", "content": "您好，请问有什么可以帮您？"},
                {"role": "user", "content": question},
            ]
        elif place == 4:
            second, other = self._value()
            text = phrase_with(other, phrase_with(value, question, r), r)
            messages.append({"role": "user", "content": text})
            return RequestKind.PERSONAL_IN_MESSAGES, (first, second)
        elif place == 5:
            messages.append({"role": "user", "content": question})
            extra["user"] = value.text
            return RequestKind.PERSONAL_IN_PARAMS, (first,)
        else:
            messages.append({"role": "user", "content": question})
            extra["metadata"] = {"customer": value.text}
            return RequestKind.PERSONAL_IN_PARAMS, (first,)
        return RequestKind.PERSONAL_IN_MESSAGES, (first,)

    def _spoof(self, tenant: int, extra: dict[str, Any]) -> list[tuple[str, str]]:
        """Claims to be another tenant: its real salt, its id in headers and ``user``."""
        r = self._random
        other = self.tenants[(tenant + 1 + r.randrange(len(self.tenants) - 1)) % len(self.tenants)]
        extra["cache_salt"] = r.choice((self.salts[other], other, secrets.token_hex(8)))
        extra["user"] = other
        return [(name, other) for name in TENANT_HEADERS]


# -- driving ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrafficResult:
    outcomes: list[Outcome]
    seconds: float
    purges: int
    #: "<status> <error type>" of every non-200 response (the gateway's error body).
    errors: Counter[str] = field(default_factory=Counter)


def error_type(body: bytes) -> str:
    try:
        error = orjson.loads(body).get("error", {})
    except (orjson.JSONDecodeError, AttributeError):
        return "not_json"
    return str(error.get("type", "unknown")) if isinstance(error, dict) else "unknown"


async def drive(
    stack: CheckStack, plan: TrafficPlan, *, concurrency: int, timeout_s: float
) -> TrafficResult:
    """Send every planned request; a purge through the admin API every ``purge_every``."""
    client = KeepAliveClient(stack.gateway_url, api_key=stack.admin_token)
    outcomes: list[Outcome] = []
    errors: Counter[str] = Counter()
    purges = 0
    sequence = enumerate(plan)
    every = max(1, plan.config.purge_every)
    chooser = random.Random(plan.config.seed + 1)  # noqa: S311 - a reproducible workload

    async def worker() -> None:
        nonlocal purges
        for index, planned in sequence:
            if index and index % every == 0:
                tag = f"{chooser.choice(plan.pool.products)}/p"
                raw = client.request(orjson.dumps({"tags": [tag]}), path="/admin/purge")
                try:
                    reply = await asyncio.wait_for(client.exchange(raw), timeout_s)
                except (TimeoutError, ConnectionError, OSError):
                    pass
                else:
                    purges += int(reply.status == 200)
            tenant = plan.tenants[planned.tenant]
            raw = client.request(
                planned.body, dict(planned.headers), api_key=stack.api_keys[tenant]
            )
            try:
                reply = await asyncio.wait_for(client.exchange(raw), timeout_s)
            except (TimeoutError, ConnectionError, OSError) as exc:
                errors[f"0 {type(exc).__name__}"] += 1
                outcomes.append(
                    Outcome(planned.tenant, planned.kind, 0, "", None, None, planned.slot, ())
                )
                continue
            if reply.status != 200:
                errors[f"{reply.status} {error_type(reply.body)}"] += 1
            outcomes.append(
                Outcome(
                    tenant=planned.tenant,
                    kind=planned.kind,
                    status=reply.status,
                    cache=reply.headers.get("x-cache", ""),
                    cache_key=reply.headers.get("x-cache-key"),
                    completion_id=answer_origin(reply.headers, reply.body)
                    if reply.status == 200
                    else None,
                    slot=planned.slot,
                    personal=planned.personal,
                )
            )

    started = time.perf_counter()
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        await client.close()
    return TrafficResult(outcomes, time.perf_counter() - started, purges, errors)
