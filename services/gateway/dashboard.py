"""The built-in dashboard: gathers metrics text from the gateway itself, the upstream and
optional extra sources, and hands the samples to ``core.dashboard.summarize``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from importlib import resources
from typing import Any

import httpx
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.core.dashboard import Sample, summarize

log = logging.getLogger(__name__)


def dashboard_html() -> bytes:
    return (resources.files("services.gateway") / "static" / "dashboard.html").read_bytes()


def _samples(text: str) -> list[Sample]:
    out = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.append(Sample(sample.name, dict(sample.labels), float(sample.value)))
    return out


class DashboardSource:
    def __init__(
        self, registry: CollectorRegistry, http: httpx.AsyncClient, urls: Sequence[str]
    ) -> None:
        self._registry = registry
        self._http = http
        self._urls = tuple(urls)

    async def _fetch(self, url: str) -> tuple[str, list[Sample]]:
        try:
            response = await self._http.get(url, timeout=2.0)
            response.raise_for_status()
            return url, _samples(response.text)
        except (httpx.HTTPError, ValueError) as exc:
            log.debug("dashboard source %s unavailable: %s", url, exc)
            return url, []

    async def numbers(self) -> dict[str, Any]:
        own = _samples(generate_latest(self._registry).decode())
        fetched = await asyncio.gather(*(self._fetch(url) for url in self._urls))
        samples = own + [s for _, found in fetched for s in found]
        result = summarize(samples)
        result["sources"] = {url: bool(found) for url, found in fetched}
        return result
