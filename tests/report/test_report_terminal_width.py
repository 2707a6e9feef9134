"""Terminal tables fit a 120-column window: long names wrap (never cut), abbreviated headers
have a legend (issue 26). The CLI runs on a real pseudo-terminal 120 columns wide."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, SRC, TRANSCRIPTS

WIDTH = 120
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG = "a-claude-code-session-with-a-rather-long-descriptive-file-name-kept-by-its-owner.jsonl"


def on_a_terminal(*args: str, cwd: Path) -> list[str]:
    """``earnest ARGS`` with its stdout on a pseudo-terminal 120 columns wide; the lines."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(WIDTH), "LINES": "60", "NO_COLOR": "1", "TERM": "xterm",
           "PYTHONPATH": str(SRC)}  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "earnest", *args], cwd=cwd, env=env, stdout=follower,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    assert proc.returncode in (0, 1), proc.stderr.read() if proc.stderr else ""
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    return text.replace("\r\n", "\n").splitlines()


def first_column(lines: list[str]) -> str:
    """The first column's text of a table, its wrapped lines joined."""
    cells = [re.split(r"\s*[│┃]", line, maxsplit=1)[0].strip() for line in lines if "│" in line]
    return "".join(cells)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    shutil.copytree(EXAMPLES / "trajectories", root, dirs_exist_ok=True)
    shutil.copy(TRANSCRIPTS / "claude-code" / "drmaciver-coverage-test-fix.jsonl", root / LONG)
    return root


@pytest.mark.parametrize("command", [["trajectory", "score"], ["trajectory", "replay-gate"]])
def test_trajectory_tables_fit_and_never_cut_a_name(command: list[str], runs: Path) -> None:
    lines = on_a_terminal(*command, str(runs), "--dimensions", "all", cwd=runs) if command[1] == "score" else on_a_terminal(*command, str(runs), cwd=runs)  # fmt: skip
    too_wide = [line for line in lines if len(line) > WIDTH]
    assert too_wide == []
    rows = [line for line in lines if "│" in line]
    assert not [r for r in rows if "…" in r]  # no name cut behind an ellipsis
    assert LONG in first_column(lines)
    for path in (EXAMPLES / "trajectories").glob("*.*[jt]*"):
        assert path.name in first_column(lines), path.name


def test_abbreviated_dimensions_have_a_legend(runs: Path) -> None:
    lines = on_a_terminal("trajectory", "score", str(runs), "--dimensions", "all", cwd=runs)
    header = next(line for line in lines if "plan" in line and "outcome" in line)
    assert "effe" in header
    legend = next(line for line in lines if line.startswith("plan = planning"))
    assert "effe = effect_grounding" in legend and "aggr = aggregate" in legend
