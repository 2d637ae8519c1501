"""Progress display shared by the long-running commands."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def stage_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A rich progress bar per stage on stderr; yields ``advance(stage, done, total)``."""
    from rich.console import Console
    from rich.progress import Progress, TaskID

    with Progress(console=Console(stderr=True), transient=True) as progress:
        tasks: dict[str, TaskID] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done)

        yield advance
