"""The guides' commands run as written.

Every fenced ``sh`` and ``python`` block in ``docs/guides/*.md`` runs, in order, in a fresh
folder holding a copy of ``examples/`` (the guides are written for the repository root), with
``earnest``, ``python``/``python3``, ``pytest`` and ``dask`` on PATH and HOME pointing into the
folder.
A block whose first line is ``# not run...`` is skipped (it must say why); a line
``# expect exit N`` sets the exit status the block must end with (default 0). Blocks in other
languages (``yaml``, ``json``, ``toml``) are read, never run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES, REPO, SRC

GUIDES = REPO / "docs" / "guides"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
EXPECT = re.compile(r"^# expect exit (\d+)", re.M)
LOCAL_SERVER = "http://localhost:11434/v1"
REQUIRED = (
    "writing-fixtures.md",
    "ci.md",
    "effect-gate.md",
    "stop-hooks.md",
    "live-runs.md",
    "report.md",
    "dask.md",
)


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int

    @property
    def runs(self) -> bool:
        return self.lang in ("sh", "python") and not self.code.startswith("# not run")

    @property
    def expect(self) -> int:
        m = EXPECT.search(self.code)
        return int(m.group(1)) if m else 0


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in FENCE.finditer(text)
    ]


def _plugin_args() -> str:
    installed = any(
        ep.value == "earnest.pytest_plugin" for ep in metadata.entry_points(group="pytest11")
    )
    return "" if installed else "-p earnest.pytest_plugin"


def workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder laid out like the repository root, and the environment the blocks run in."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shims = {
        "earnest": f'exec "{sys.executable}" -m earnest "$@"',
        "python": f'exec "{sys.executable}" "$@"',
        "python3": f'exec "{sys.executable}" "$@"',
        "pytest": f'exec "{sys.executable}" -m pytest {_plugin_args()} "$@"',
        "dask": f'exec "{sys.executable}" -m dask "$@"',
    }
    for name, body in shims.items():
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        shim.chmod(0o755)
    (tmp_path / "home").mkdir()
    env = dict(os.environ)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        HOME=str(tmp_path / "home"),
        NO_COLOR="1",
        COLUMNS="200",
    )
    for key in ("EARNEST_EFFECT_GATE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return work, env


def run_block(block: Block, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if block.lang == "sh":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    else:
        cmd = [sys.executable, "-c", block.code]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def test_every_guide_exists_and_runs_something() -> None:
    for name in REQUIRED:
        path = GUIDES / name
        assert path.is_file(), f"missing guide {path}"
        assert any(b.runs for b in blocks(path)), f"{name} has no runnable block"
    for path in sorted(GUIDES.glob("*.md")):
        for b in blocks(path):
            if b.lang in ("sh", "python") and b.code.startswith("# not run"):
                first = b.code.splitlines()[0]
                assert first.startswith("# not run:") and len(first) > 15, (
                    f"{path.name}:{b.line}: say why the block is not run"
                )


@pytest.mark.parametrize(
    "guide",
    [p for p in sorted(GUIDES.glob("*.md")) if p.name != "live-runs.md"],
    ids=lambda p: p.name,
)
def test_guide_commands_run_as_written(guide: Path, tmp_path: Path) -> None:
    work, env = workspace(tmp_path)
    ran = 0
    for block in blocks(guide):
        if not block.runs:
            continue
        proc = run_block(block, work, env)
        assert proc.returncode == block.expect, (
            f"{guide.name}:{block.line}: exit {proc.returncode}, expected {block.expect}\n"
            f"--- block\n{block.code}--- stdout\n{proc.stdout[-3000:]}--- stderr\n"
            f"{proc.stderr[-3000:]}"
        )
        assert "Traceback" not in proc.stderr, f"{guide.name}:{block.line}\n{proc.stderr}"
        ran += 1
    assert ran > 0


def test_live_runs_guide_against_a_local_server(tmp_path: Path) -> None:
    """The live-runs guide, with its local model server played by a fake OpenAI-compatible
    server this test starts: the guide's address (Ollama's) is replaced by the fake's; every
    other word of every block runs as written."""
    pytest.importorskip("openai")
    from runkit import FakeModelServer, example_agent

    work, env = workspace(tmp_path)
    guide = GUIDES / "live-runs.md"
    ran = 0
    with FakeModelServer(example_agent(work / "examples" / "suite")) as server:
        for block in blocks(guide):
            if not block.runs:
                continue
            assert LOCAL_SERVER in block.code or "earnest" in block.code
            code = block.code.replace(LOCAL_SERVER, server.base_url)
            proc = run_block(Block(block.lang, code, block.line), work, env)
            assert proc.returncode == block.expect, (
                f"{guide.name}:{block.line}: exit {proc.returncode}\n{proc.stdout[-2000:]}"
                f"\n{proc.stderr[-2000:]}"
            )
            ran += 1
    assert ran >= 4
    assert (work / "run.html").is_file() and (work / "compare.html").is_file()
    assert "<testsuites" in (work / "compare.xml").read_text(encoding="utf-8")
    assert '"earnest_baseline": 1' in (work / "baseline.json").read_text(encoding="utf-8")


def test_ci_workflow_runs_earnest_check_as_junit_and_publishes_it(tmp_path: Path) -> None:
    workflow_file = GUIDES / "github-workflow.yml"
    text = workflow_file.read_text(encoding="utf-8")
    # the guide shows the very file, so the two cannot drift apart
    assert any(b.lang == "yaml" and b.code == text for b in blocks(GUIDES / "ci.md"))
    wf = yaml.safe_load(text)
    assert wf.get("on", wf.get(True)) is not None
    steps = wf["jobs"]["earnest"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    check = next(r for r in runs if r.startswith("earnest check"))
    assert "--format junit" in check
    junit = check.split("--output", 1)[1].split()[0]
    publish = next(s for s in steps if "junit-report" in s.get("uses", ""))
    assert publish["with"]["report_paths"] == junit
    assert publish["if"] == "${{ !cancelled() }}"  # published when the check failed too

    # the workflow's earnest commands run as written on the example suite
    work, env = workspace(tmp_path)
    for command in (r for r in runs if r.startswith("earnest ")):
        proc = subprocess.run(
            ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=120
        )
        # the example suite's recorded replies include failures on purpose: check exits 1
        assert proc.returncode == (1 if command.startswith("earnest check") else 0), proc.stderr
    import xml.etree.ElementTree as ET

    root = ET.parse(work / junit).getroot()
    assert int(root.get("tests", "0")) > 27 and int(root.get("failures", "0")) == 10
    assert (work / "earnest-report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
