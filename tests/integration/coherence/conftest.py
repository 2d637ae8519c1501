"""The worker fixtures live in tests/integration/conftest.py (shared by every suite)."""

from tests.integration.conftest import PARTITIONS, WorkerEnv, make_worker_env

__all__ = ["PARTITIONS", "WorkerEnv", "make_worker_env"]
