"""Output that is not a terminal is never wrapped or cut; a terminal gets the fitted table."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES, SRC, TRANSCRIPTS, run_earnest

LONG = "a-session-with-a-long-descriptive-name-that-tells-what-it-was-about-transcript.jsonl"


def _long_named(tmp_path: Path) -> Path:
    target = tmp_path / LONG
    shutil.copy(TRANSCRIPTS / "claude-code" / "drmaciver-hello-world-script.jsonl", target)
    return target


def test_piped_trajectory_score_keeps_whole_names(tmp_path: Path) -> None:
    path = _long_named(tmp_path)
    for command in (("trajectory", "score"), ("trajectory", "replay-gate")):
        proc = run_earnest(*command, str(path), env={"COLUMNS": "60"})
        assert proc.returncode in (0, 1), proc.stderr
        assert LONG in proc.stdout and "…" not in proc.stdout, proc.stdout


def test_output_file_keeps_whole_names(tmp_path: Path) -> None:
    path = _long_named(tmp_path)
    out = tmp_path / "score.txt"
    proc = run_earnest("trajectory", "score", str(path), "-o", str(out), env={"COLUMNS": "60"})
    assert proc.returncode in (0, 1), proc.stderr
    assert LONG in out.read_text()


def test_piped_check_never_splits_a_line() -> None:
    suite = EXAMPLES / "suite"
    narrow = run_earnest("check", "--suite", str(suite), env={"COLUMNS": "60"})
    wide = run_earnest("check", "--suite", str(suite), env={"COLUMNS": "1000"})
    assert narrow.returncode == wide.returncode == 1
    # The width of the reader's window does not change what a pipe receives.
    assert narrow.stdout == wide.stdout
    excuses = [line for line in narrow.stdout.splitlines() if line.startswith("  used excuse")]
    assert excuses and all(line.rstrip().endswith(".") for line in excuses), excuses
    rows = [line for line in narrow.stdout.splitlines() if line.startswith("7 ")]
    assert rows and "not a single forced choice)" in rows[0]  # the debt reason, on its row


def test_a_terminal_gets_the_table_fitted_to_its_width(tmp_path: Path) -> None:
    path = _long_named(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(SRC), COLUMNS="80", LINES="40", NO_COLOR="1")
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "earnest", "trajectory", "score", str(path)],
            stdout=follower, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
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
        proc.wait(timeout=60)
    finally:
        os.close(leader)
    text = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode("utf-8", "replace"))
    assert proc.returncode in (0, 1)
    # The name gives way so the columns fit: it wraps onto more lines, never cut (issue 26).
    rows = [line for line in text.splitlines() if "│" in line]
    assert rows and not [r for r in rows if "…" in r]
    first = "".join(re.split(r"\s*[│┃]", r, maxsplit=1)[0].strip() for r in rows)
    assert LONG in first
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
