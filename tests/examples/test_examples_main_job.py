"""The README's main job runs end to end on the bundled example data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO, SRC


def test_main_job_runs_every_step(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC)
    # Put this interpreter first on PATH so `python3 -m earnest` is the code under test when
    # no virtual environment or console script is there.
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").symlink_to(sys.executable)
    env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
    env["EARNEST_OUT"] = str(tmp_path / "out")  # the report goes here, not into the checkout
    proc = subprocess.run(
        ["sh", str(REPO / "examples" / "main-job.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    steps = (
        "check --suite",
        "score --suite",
        "trajectory score",
        "trajectory replay-gate",
        "report",
    )
    for step in steps:
        assert f"$ earnest {step}" in out
    report = tmp_path / "out" / "report.html"
    assert f"wrote {report} (27 replies" in out
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "check: FAILED: replies:" in out  # the example replies hold every verdict
    assert "completion without effect: 2/12" in out
    # Said versus did: the agentic suite acted out, one verdict per scripted agent.
    assert "$ earnest check --suite examples/agentic" in out
    assert "$ earnest run --suite examples/agentic --act" in out
    for verdict in (
        "pass 1",
        "fail-choice 1",
        "fail-citation 1",
        "fail-hybrid 1",
        "fail-unparseable 1",
        "fail-action 1",
    ):
        assert verdict in out
    agentic = tmp_path / "out" / "agentic-report.html"
    # Two agentic fixtures: the merge one (9 scripted agents) and the release one (order, git,
    # all_of and content evidence), two of whose agents crash or write outside their copy.
    assert f"wrote {agentic} (22 replies, 2 fixtures)" in out
    html = agentic.read_text(encoding="utf-8")
    assert '<section id="said-did">' in html and "git merge --no-ff feature/lock-timeout" in html
    assert out.rstrip().endswith("main job: done")
