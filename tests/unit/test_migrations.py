"""Migrations run from several threads of one process at once (test fixtures start
stacks side by side): each database gets its own migrations, once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from services.adapters.sql.engine import current_revision, upgrade


def test_threads_migrating_their_own_sqlite_files_at_once_all_reach_head(
    tmp_path: Path,
) -> None:
    urls = [f"sqlite:///{tmp_path / f'db-{n}.sqlite'}" for n in range(6)]
    with ThreadPoolExecutor(len(urls)) as pool:
        list(pool.map(upgrade, urls))
    heads = {current_revision(url) for url in urls}
    assert len(heads) == 1 and None not in heads
