"""A process that left its sample's process group is found by the copy its environment names
(:mod:`earnest.live.leftovers`), and only by that exact copy."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from earnest.live.leftovers import kill_marked, marked


def _sleeper(workspace: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "EARNEST_WORKSPACE": str(workspace)}
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True
    )


def test_the_process_naming_the_copy_is_found_and_killed(tmp_path: Path) -> None:
    ours, other = tmp_path / "ws", tmp_path / "ws2"
    sleeper, bystander = _sleeper(ours), _sleeper(other)
    try:
        deadline = time.monotonic() + 10
        while sleeper.pid not in marked(ours) and time.monotonic() < deadline:
            time.sleep(0.05)  # the environment is readable once the child has exec'd
        assert marked(ours) == [sleeper.pid]
        assert bystander.pid not in marked(ours)  # /x/ws is not /x/ws2
        assert kill_marked(ours) == 1
        assert sleeper.wait(10) == -9
        assert bystander.poll() is None  # the other sample's process is left alone
    finally:
        for proc in (sleeper, bystander):
            proc.kill()
            proc.wait()


def test_nothing_is_found_without_proc(tmp_path: Path) -> None:
    assert marked(tmp_path / "ws", proc=tmp_path / "no-proc") == []
