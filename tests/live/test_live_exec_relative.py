"""``exec:cmd:./agent.sh`` is found in the folder earnest was run from; the child still runs in
its own temporary folder, and a missing program's error names the path that was tried."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from live_suite import write_suite

from conftest import run_earnest

AGENT = f"""#!{sys.executable}
import json, os, sys
sys.stdin.read()
with open(os.environ["RECORD"], "a") as fh:
    fh.write(json.dumps({{"cwd": os.getcwd()}}) + "\\n")
print("Rule 1 decides this.\\nCHOICE: A")
"""


def test_relative_command_runs_from_the_invoking_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    suite = write_suite(project / "suite", 1)
    agent = project / "agent.sh"
    agent.write_text(AGENT)
    agent.chmod(0o755)
    record = tmp_path / "record.jsonl"
    proc = run_earnest(
        "run", "--suite", "suite", "--profile", "a=exec:cmd:./agent.sh", "--samples", "1",
        "--arms", "rule", "--yes", "--store", str(tmp_path / "runs.db"), "--format", "json",
        "--allow-env", "RECORD", "--confine", "none", cwd=project, env={"RECORD": str(record)},
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert "cannot start" not in proc.stderr and "void 0" in proc.stderr
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    assert calls, "the agent never ran"
    # The child ran in its own temporary folder, not in the project.
    assert all(Path(c["cwd"]).resolve() != project.resolve() for c in calls)
    assert suite.is_dir()


def test_missing_relative_command_names_the_tried_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_suite(project / "suite", 1)
    proc = run_earnest(
        "run", "--suite", "suite", "--profile", "a=exec:cmd:./nope.sh", "--yes",
        "--store", str(tmp_path / "runs.db"), cwd=project,
    )  # fmt: skip
    assert proc.returncode == 2
    assert f"tried {project / 'nope.sh'}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_resolve_program() -> None:
    from earnest.live.providers.exec_cli import resolve_program

    base = Path("/srv/project")
    assert resolve_program("./agent.sh", base) == str(base / "agent.sh")
    assert resolve_program("bin/agent", base) == str(base / "bin" / "agent")
    assert resolve_program("/usr/bin/env", base) == "/usr/bin/env"
    assert resolve_program("claude", base) == "claude"
    assert os.sep == "/" or resolve_program(".\\agent.bat", base).endswith("agent.bat")
