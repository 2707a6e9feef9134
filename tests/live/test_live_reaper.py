"""A sample's reaper (:mod:`earnest.live.reaper`) leaves nothing of its agent behind: not a
process in a session of its own, not one that emptied its environment and lost its parent;
on SIGTERM (earnest's timeout) the same; and it exits as its agent did.

The agents are real shell scripts; what they start writes its pid, then (2 s later) a file
that must never appear."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from earnest.live.providers.base import ProviderError
from earnest.live.providers.exec_cli import run_child
from earnest.live.reaper import SUPPORTED, children_of, reaper_argv

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="subreapers are Linux's")


def _escaper(tmp_path: Path, then: str) -> list[str]:
    """An agent that starts a writer out of its group, with an empty environment and no
    parent (``env -i setsid`` behind a shell that exits at once), then runs ``then``."""
    pid, late = shlex.quote(str(tmp_path / "pid")), shlex.quote(str(tmp_path / "late"))
    writer = f"echo $$ > {pid}; sleep 2; echo late > {late}"
    script = f"sh -c \"env -i setsid sh -c '{writer}' &\"; {then}"
    return ["sh", "-c", script]


def _gone(tmp_path: Path) -> None:
    """The writer was started, is gone now (within a few seconds: the reaper may still be
    cleaning up), and never wrote."""
    _wait_for_pid(tmp_path)
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the writer is still running"
    time.sleep(3)
    assert not (tmp_path / "late").exists(), "the writer outlived its agent"


def _wait_for_pid(tmp_path: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if (tmp_path / "pid").exists() and (tmp_path / "pid").read_text().strip():
            return
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Running (a zombie, not yet reaped, is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


def test_what_the_agent_left_is_killed_and_its_status_kept(tmp_path: Path) -> None:
    # The agent waits until its writer runs, then exits 3.
    wait = shlex.quote(str(tmp_path / "pid"))
    argv = _escaper(tmp_path, f"while [ ! -s {wait} ]; do sleep 0.05; done; exit 3")
    done = subprocess.run(reaper_argv(argv), capture_output=True, timeout=60, check=False)
    assert done.returncode == 3, done.stderr
    _gone(tmp_path)


def test_without_the_reaper_the_writer_escapes(tmp_path: Path) -> None:
    """The case the reaper is for: a process group kill does not reach it."""
    wait = shlex.quote(str(tmp_path / "pid"))
    argv = _escaper(tmp_path, f"while [ ! -s {wait} ]; do sleep 0.05; done")
    proc = subprocess.Popen(argv, start_new_session=True)
    assert proc.wait(60) == 0
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # as run_child does without a reaper
    time.sleep(3)
    assert (tmp_path / "late").read_text() == "late\n"


def test_an_agent_killed_by_a_signal_is_reported_so(tmp_path: Path) -> None:
    done = subprocess.run(reaper_argv(["sh", "-c", "kill -USR1 $$"]), timeout=60, check=False)
    assert done.returncode == -signal.SIGUSR1


def test_sigterm_kills_the_agent_and_what_it_left(tmp_path: Path) -> None:
    proc = subprocess.Popen(reaper_argv(_escaper(tmp_path, "sleep 60")), start_new_session=True)
    try:
        _wait_for_pid(tmp_path)
        assert len(children_of(proc.pid)) >= 2  # the agent (sh, sleep) and the writer
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 128 + signal.SIGTERM
        _gone(tmp_path)
    finally:
        proc.kill()
        proc.wait()


def test_a_timed_out_reaped_child_leaves_nothing(tmp_path: Path) -> None:
    """``run_child``'s timeout asks the reaper first, then kills the group."""
    argv = _escaper(tmp_path, "sleep 60")

    async def go() -> None:
        await run_child(argv, "", cwd=str(tmp_path), env=dict(os.environ), timeout=1.5, reap=True)

    with pytest.raises(ProviderError, match="no reply within"):
        asyncio.run(go())
    _gone(tmp_path)


def test_the_reaper_dies_with_its_parent(tmp_path: Path) -> None:
    """earnest killed outright (SIGKILL): the reaper hears it (PR_SET_PDEATHSIG) and cleans."""
    parent = "import subprocess, sys, time\nsubprocess.Popen(sys.argv[1:])\ntime.sleep(60)\n"
    inner = _escaper(tmp_path, "sleep 60")
    proc = subprocess.Popen([sys.executable, "-c", parent, *reaper_argv(inner, parent=0)])
    proc.kill()
    proc.wait()
    # parent=0 is no process: the reaper refuses to run an agent it would not outlive.
    time.sleep(1)
    assert not (tmp_path / "pid").exists()
    launcher = (
        "import os, subprocess, sys, time\n"
        "from earnest.live.reaper import reaper_argv\n"
        "subprocess.Popen(reaper_argv(sys.argv[1:]))\n"
        "time.sleep(60)\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    proc = subprocess.Popen([sys.executable, "-c", launcher, *inner], env=env)
    try:
        _wait_for_pid(tmp_path)
        proc.kill()
        proc.wait()
        _gone(tmp_path)
    finally:
        proc.kill()
        proc.wait()
