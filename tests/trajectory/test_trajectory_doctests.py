"""Every trajectory module's docstring example runs and holds."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import earnest.trajectory
import earnest.trajectory.readers
import earnest.trajectory.scorers

MODULES = sorted(
    {f"earnest.trajectory.{m.name}" for m in pkgutil.iter_modules(earnest.trajectory.__path__)}
    | {
        f"earnest.trajectory.readers.{m.name}"
        for m in pkgutil.iter_modules(earnest.trajectory.readers.__path__)
    }
    | {
        f"earnest.trajectory.scorers.{m.name}"
        for m in pkgutil.iter_modules(earnest.trajectory.scorers.__path__)
    }
    | {"earnest.trajectory", "earnest.trajectory.readers", "earnest.trajectory.scorers"}
)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert module.__doc__ and "Example" in module.__doc__
