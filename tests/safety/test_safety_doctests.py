"""The examples in the safety modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "earnest.files",
    "earnest.redact",
    "earnest.cli.output",
    "earnest.live.runlock",
    "earnest.live.store_check",
    "earnest.live.store",
    "earnest.live.confine",
    "earnest.live.agentenv",
    "earnest.live.netgate",
    "earnest.live.sandbox",
    "earnest.live.endpoint",
    "earnest.live.grants",
    "earnest.live.userconfig",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
