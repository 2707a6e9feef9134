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
