"""Every exception class defined in ``services`` is under ``CachecohError``, and the tree in
``services/core/errors.py``'s docstring and docs/architecture.md name each of them."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import services
from services.core import errors
from services.core.errors import CachecohError
from services.paths import PROJECT_ROOT

#: Modules that do something when imported: entry points and Alembic's migration env.
_NOT_IMPORTABLE = ("__main__", ".migrations")


def _exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(services.__path__, prefix="services."):
        if any(part in info.name for part in _NOT_IMPORTABLE):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found.append(obj)
    return found


def test_every_exception_is_a_cachecoh_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 40  # the walk really found the package's exceptions
    outside = sorted(
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, CachecohError)
    )
    assert outside == []


@pytest.mark.parametrize(
    "document",
    [errors.__doc__ or "", (PROJECT_ROOT / "docs" / "architecture.md").read_text("utf-8")],
    ids=["errors.py", "docs/architecture.md"],
)
def test_the_documented_tree_names_every_exception(document: str) -> None:
    missing = sorted(c.__qualname__ for c in _exception_classes() if c.__qualname__ not in document)
    assert missing == []
