"""The blind sets are frozen before their first run: each ``setN.jsonl`` still has the line
count and sha256 its ``setN.FROZEN`` recorded, so a report on it is a report on the set the
writer handed over, not on one edited after its results were seen."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

BLIND = Path(__file__).resolve().parents[3] / "services" / "data" / "blind"
FROZEN = sorted(BLIND.glob("set*.FROZEN"))


def _record(path: Path) -> dict[str, str]:
    """``lines N`` and ``sha256 HEX`` (older records: ``setN.jsonl lines=N sha256=HEX``)."""
    text = path.read_text()
    lines = re.search(r"lines[ =](\d+)", text)
    digest = re.search(r"sha256[ =]([0-9a-f]{64})", text)
    assert lines and digest, f"{path.name}: no line count or sha256"
    return {"lines": lines.group(1), "sha256": digest.group(1)}


def test_recent_sets_are_frozen() -> None:
    names = {path.stem for path in FROZEN}
    assert {f"set{n}" for n in range(14, 96)} <= names


@pytest.mark.parametrize("frozen", FROZEN, ids=[path.stem for path in FROZEN])
def test_set_matches_its_freeze_record(frozen: Path) -> None:
    record = _record(frozen)
    data = frozen.with_suffix(".jsonl").read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["sha256"]
    assert data.count(b"\n") == int(record["lines"])
