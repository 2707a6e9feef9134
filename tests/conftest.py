"""Shared test helpers: run the real CLI in a subprocess, locate the curated test data.

The real transcripts and the real suite the tests read live in ``tests/data/`` (each folder's
``SOURCE.md`` names where every file came from): a fresh clone has all it needs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
TEST_DATA = REPO / "tests" / "data"
TRANSCRIPTS = TEST_DATA / "transcripts"
NUBOS_SUITE = TEST_DATA / "nubos-pilot-suite"
EXAMPLES = REPO / "examples"
NO_USER_CONFIG = str(REPO / "tests" / "data" / "no-such-user-config.toml")
"""``EARNEST_CONFIG`` in tests: the user's own config of the machine never changes a test."""


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EARNEST_CONFIG", NO_USER_CONFIG)


def run_earnest(
    *args: str,
    input: str | bytes | None = None,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m earnest ARGS`` as a real subprocess and capture text output."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join([str(SRC), full_env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    full_env.setdefault("NO_COLOR", "1")
    full_env["COLUMNS"] = "200"
    full_env["EARNEST_CONFIG"] = NO_USER_CONFIG
    if env:
        full_env.update(env)
    data = input.decode() if isinstance(input, bytes) else input
    return subprocess.run(
        [sys.executable, "-m", "earnest", *args],
        input=data,
        capture_output=True,
        text=True,
        cwd=str(cwd) if cwd else None,
        env=full_env,
        timeout=timeout,
    )


@pytest.fixture
def earnest_cli():  # type: ignore[no-untyped-def]
    return run_earnest


def _said(clear: bool = False) -> str:
    # tests/realcli/harness.py keeps what the CLI runs of the current test said.
    said = getattr(sys.modules.get("harness"), "said", None)
    return str(said(clear=clear)) if callable(said) else ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """A failing real-CLI test (tests/realcli) shows what the CLIs it ran said."""
    report = yield
    if "realcli" not in item.nodeid.split("/"):
        return report
    if report.failed:
        # A module's shared run (the act tier's) says it on every test that reads it.
        shared = [
            v.cli_said() for v in getattr(item, "funcargs", {}).values() if hasattr(v, "cli_said")
        ]
        text = "\n\n".join(t for t in [*shared, _said()] if t)
        if text:
            report.sections.append(("what the real CLI said", text))
    if call.when == "teardown":
        _said(clear=True)
    return report
