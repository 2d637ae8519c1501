"""docs/configuration.md and docs/metrics.md are generated; they must match the code."""

from __future__ import annotations

from services.config_reference import render_markdown as render_configuration
from services.metrics_reference import render_markdown as render_metrics
from services.paths import PROJECT_ROOT


def test_configuration_reference_is_up_to_date() -> None:
    on_disk = (PROJECT_ROOT / "docs" / "configuration.md").read_text()
    assert on_disk.strip() == render_configuration().strip(), (
        "run: cachecoh config > docs/configuration.md"
    )


def test_metrics_reference_is_up_to_date() -> None:
    on_disk = (PROJECT_ROOT / "docs" / "metrics.md").read_text()
    assert on_disk.strip() == render_metrics().strip(), "run: cachecoh metrics > docs/metrics.md"


def test_every_setting_is_explained() -> None:
    for line in render_configuration().splitlines():
        if line.startswith("| `CACHECOH_"):
            assert not line.rstrip().endswith("|  |"), line
