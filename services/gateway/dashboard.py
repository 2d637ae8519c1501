"""The built-in dashboard: gathers metrics text from the gateway itself, the upstream and
optional extra sources (``name=url`` or a bare URL), and hands the samples to
``core.dashboard.summarize``; each source is shown up or down."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from importlib import resources
from typing import Any

import httpx
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.core.dashboard import MetricsSource, Sample, Scrape, process_status, summarize

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
        self._sources = tuple(MetricsSource.parse(entry) for entry in urls)

    async def _scrape(self, source: MetricsSource) -> Scrape:
        try:
            response = await self._http.get(source.url, timeout=2.0)
            response.raise_for_status()
            return Scrape(source, True, _samples(response.text))
        except (httpx.HTTPError, ValueError) as exc:
            log.debug("dashboard source %s unavailable: %s", source.url, exc)
            return Scrape(source, False, [])

    async def numbers(self) -> dict[str, Any]:
        own = _samples(generate_latest(self._registry).decode())
        scrapes = await asyncio.gather(*(self._scrape(source) for source in self._sources))
        samples = own + [s for scrape in scrapes for s in scrape.samples]
        result = summarize(samples, now=time.time())
        result["processes"] = [
            {"name": "gateway", "kind": "gateway", "url": None, "up": True},
            *process_status(scrapes),
        ]
        result["sources"] = {scrape.source.url: scrape.up for scrape in scrapes}
        return result
