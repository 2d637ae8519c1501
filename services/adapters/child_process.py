"""Child processes we own (embedded broker, private redis-server): start in their own
session, pause and resume (SIGSTOP/SIGCONT, for fault tests), stop for good."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self


class OwnedProcess:
    """Mixin: the subclass sets ``_process`` (``None`` until started) and defines ``start``."""

    _process: subprocess.Popen[bytes] | None

    def _spawn(
        self,
        args: Sequence[str],
        *,
        log_file: Path | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        out = log_file.open("ab") if log_file is not None else None
        try:
            self._process = subprocess.Popen(  # noqa: S603 - binaries we ship or require
                list(args),
                stdout=out if out is not None else subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
                cwd=str(cwd) if cwd is not None else None,
                start_new_session=True,
            )
        finally:
            if out is not None:
                out.close()  # the child holds its own copy of the descriptor

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError(f"{type(self).__name__} not started")
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def pause(self) -> None:
        """SIGSTOP: a stall, for fault tests."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def stop(self, timeout_s: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)  # a paused process cannot exit
        process.terminate()
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def start(self) -> Self:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
