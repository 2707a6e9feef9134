"""`pytest --earnest-suite examples/agentic`: fail-action items like every other verdict."""

from __future__ import annotations

from importlib import metadata

import pytest
from tests.conftest import EXAMPLES

pytest_plugins = ["pytester"]


def test_pytest_items_report_fail_action(pytester: pytest.Pytester) -> None:
    installed = any(
        ep.value == "earnest.pytest_plugin" for ep in metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", "earnest.pytest_plugin"]
    result = pytester.runpytest(
        *plugin, "-p", "no:cacheprovider", "--earnest-suite", str(EXAMPLES / "agentic"), "-rf"
    )
    # lint: config + doctrine + 1 agent + 2 fixture files; coverage; 20 replies (2 pass; the
    # crasher's two void lines are no replies)
    result.assert_outcomes(passed=5 + 1 + 2, failed=18)
    out = result.stdout.str()
    assert "fail-action: chose D = choice B (compliant); said B, did otherwise" in out
    assert "NO  acted: said B, did otherwise" in out
