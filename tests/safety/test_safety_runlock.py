"""One writer per run: a second `earnest run --resume` of a run another process is writing
names that process (its pid) and exits 2; each missing sample is requested once (item 5 of
issue 12). Two real processes against one local model server."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import EXAMPLES, SRC, run_earnest
from runkit import Action, FakeModelServer, example_agent


def test_a_second_resume_of_a_run_is_refused_naming_the_holder(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    store = tmp_path / "runs.db"
    agent = example_agent(suite)
    phase = ["refuse"]

    def script(req):  # type: ignore[no-untyped-def]
        if phase[0] == "refuse":
            return Action(status=400, text="bad request")
        act = agent(req)
        act.delay = 0.25  # 24 samples one at a time: the first resume holds the run ~6 s
        return act

    with FakeModelServer(script) as srv:
        first = run_earnest(
            "run", "--suite", str(suite), "--profile", "local=openai:llama3.1:8b",
            "--base-url", srv.base_url, "--store", str(store), "--retries", "0",
            "--concurrency", "1",
        )  # fmt: skip
        assert first.returncode == 1, first.stderr
        run_id = first.stdout.strip().splitlines()[-1]
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT COUNT(*) FROM samples WHERE void = 1").fetchone()[0] == 24

        phase[0] = "answer"
        before = len(srv.requests)
        env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")
        holder = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "earnest",
                "run",
                "--resume",
                run_id,
                "--store",
                str(store),
                "--base-url",
                srv.base_url,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert holder.stderr is not None
            while True:  # it prints the run id once it holds the lock and starts
                line = holder.stderr.readline()
                assert line, "the first resume ended before it started"
                if line.startswith("run: "):
                    break
            second = run_earnest(
                "run", "--resume", run_id, "--store", str(store), "--base-url", srv.base_url
            )
            still_running = holder.poll() is None
            _, err = holder.communicate(timeout=120)
        finally:
            if holder.poll() is None:
                holder.kill()
        assert second.returncode == 2, second.stdout + second.stderr
        assert still_running, "the first resume finished before the second started"
        assert "Traceback" not in second.stderr
        assert f"process {holder.pid}" in second.stderr and str(store) in second.stderr
        assert "one writer per run" in second.stderr and run_id in second.stderr
        assert holder.returncode == 0, err
        assert len(srv.requests) - before == 24, "each missing sample requested exactly once"

        # the lock went with its holder: the run can be resumed again (nothing left to take)
        again = run_earnest(
            "run", "--resume", run_id, "--store", str(store), "--base-url", srv.base_url
        )
        assert again.returncode == 0, again.stderr
        assert "plan: 0 sample(s) to take" in again.stderr
        assert len(srv.requests) - before == 24
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT void, COUNT(*) FROM samples GROUP BY void").fetchall()
    assert rows == [(0, 24)]


def test_the_lock_library_names_the_holder(tmp_path: Path) -> None:
    """In process: the owner file names this process while the lock is held, then goes."""
    from earnest.live.runlock import holder, lock_dir, run_lock

    store = tmp_path / "runs.db"
    with run_lock(store, "R-1"):
        assert holder(store, "R-1")["pid"] == os.getpid()  # type: ignore[index]
        probe = subprocess.run(
            [sys.executable, "-c", (
                "import sys; from pathlib import Path; from earnest.live.runlock import run_lock\n"
                "from earnest.errors import InputError\n"
                "try:\n    run_lock(Path(sys.argv[1]), 'R-1').__enter__()\n"
                "except InputError as e:\n    print(e)\n"
            ), str(store)],
            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(SRC)),
        )  # fmt: skip
        assert f"process {os.getpid()}" in probe.stdout, probe.stdout + probe.stderr
    assert holder(store, "R-1") is None and lock_dir(store).is_dir()
    with run_lock(store, "R-1"):  # free again
        pass
