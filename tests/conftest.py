"""Shared test helpers: run the real CLI in a subprocess, locate the shared data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
SHARED = Path(os.environ.get("EARNEST_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"
TRANSCRIPTS = DATA / "transcripts"
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


def require_shared() -> None:
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
