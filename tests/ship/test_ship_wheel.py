"""The wheel a user installs keeps working: built, installed non-editable outside the checkout.

One build per session (``shipkit.installed``): about 20 s to build the sdist and the wheel
from it and 10-20 s to install it with its dependencies (pip's cache warm), then each command
below runs from the installed console script in a folder outside the checkout, with no
PYTHONPATH: what a user who ran ``pip install earnest-*.whl`` has.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from shipkit import Installed, clean_env, installed, offline, run, sdist_names, wheel_names

import earnest
from conftest import EXAMPLES, REPO, TRANSCRIPTS

PACKAGE = REPO / "src" / "earnest"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return installed(tmp_path_factory)


def _data_files() -> set[str]:
    """Everything earnest reads at run time that is not Python: report assets, templates..."""
    return {
        p.relative_to(PACKAGE.parent).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }


def test_the_version_lives_in_one_place() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## \[([^\]]+)\]", changelog, re.M)
    assert newest is not None and newest.group(1) == earnest.__version__


def test_the_wheel_and_the_sdist_carry_every_file_earnest_reads(wheel: Installed) -> None:
    files = _data_files()
    assert {"earnest/report/assets/report.css", "earnest/report/assets/report.js"} <= files
    assert "earnest/pressure/templates/init/recorded/replies.jsonl" in files
    in_wheel = wheel_names(wheel.wheel)
    assert files - in_wheel == set()
    modules = {p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*.py")}
    assert modules - in_wheel == set()
    in_sdist = sdist_names(wheel.sdist)
    assert {f"src/{f}" for f in files | modules} - in_sdist == set()
    assert {"pyproject.toml", "README.md", "CHANGELOG.md"} <= in_sdist


def test_the_installed_earnest_is_the_wheel_not_the_checkout(
    wheel: Installed, tmp_path: Path
) -> None:
    where = run(wheel.python, "-c", "import earnest; print(earnest.__file__)", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert str(wheel.venv) in where.stdout and str(REPO) not in where.stdout
    version = run(wheel.bin / "earnest", "--version", cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == earnest.__version__
    meta = run(wheel.python, "-c", "from importlib.metadata import version; print(version('earnest'))", cwd=tmp_path)  # fmt: skip
    assert meta.stdout.strip() == earnest.__version__


def test_the_first_hour_from_the_installed_wheel(wheel: Installed, tmp_path: Path) -> None:
    earnest_bin = wheel.bin / "earnest"

    def ok(*args: str | Path, code: int = 0) -> str:
        done = run(earnest_bin, *args, cwd=tmp_path)
        assert done.returncode == code, (
            f"earnest {args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        assert "Traceback" not in done.stderr
        return done.stdout

    created = ok("init", "my-suite")
    assert "recorded/replies.jsonl" in created
    ok("check", "--suite", "my-suite")
    # The README's score line, on the replies init wrote: one passes, one fails (exit 1).
    scored = ok("score", "--suite", "my-suite", "my-suite/recorded/replies.jsonl", "--format", "jsonl", code=1)  # fmt: skip
    verdicts = sorted(json.loads(line)["verdict"] for line in scored.splitlines())
    assert verdicts == ["fail-choice", "pass"]
    # The bundled examples (read from the checkout, run from outside it).
    ok("check", "--suite", EXAMPLES / "suite", code=1)
    traj = ok("trajectory", "score", EXAMPLES / "trajectories", "--format", "json")
    assert json.loads(traj)
    ok("report", "--suite", EXAMPLES / "suite", "--trajectories", EXAMPLES / "trajectories",
       "--output", "report.html")  # fmt: skip
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<style" in html  # the assets came along


def test_hook_install_and_one_hook_call_from_the_wheel(wheel: Installed, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = clean_env(HOME=str(home), EARNEST_STATE_DIR=str(tmp_path / "state"))
    done = run(wheel.bin / "earnest", "hook", "install", "claude-code", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (entry,) = settings["hooks"]["Stop"]
    (hook,) = entry["hooks"]
    command = hook["command"]
    assert str(wheel.venv) in command and str(REPO) not in command  # the wheel's interpreter
    # One stop of a real Claude Code session, as Claude Code makes it (shell, JSON on stdin).
    transcript = tmp_path / "transcript.jsonl"
    real = TRANSCRIPTS / "claude-code" / "drmaciver-stop-hook-fast-path-clean.jsonl"
    shutil.copy(real, transcript)
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip
    call = subprocess.run(
        ["sh", "-c", command], input=json.dumps(payload), cwd=project, env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert call.returncode == 0, call.stderr
    assert "Traceback" not in call.stderr
    if call.stdout.strip():
        assert json.loads(call.stdout)["decision"] in ("block", "approve")
    assert (tmp_path / "state").is_dir()  # the hook ran its gate and kept its state


def _runs_from(bin_dir: Path, cwd: Path, env: dict[str, str]) -> None:
    """The console script a tool installer put in ``bin_dir`` runs and reads the examples."""
    version = run(bin_dir / "earnest", "--version", cwd=cwd, env=env)
    assert version.returncode == 0 and version.stdout.strip() == earnest.__version__, version.stderr
    listed = run(bin_dir / "earnest", "list", "--suite", EXAMPLES / "suite", cwd=cwd, env=env)
    assert listed.returncode == 0 and listed.stdout.splitlines()[-1] == "list: 12 of 12 fixture(s)"


def test_pipx_installs_the_wheel(wheel: Installed, tmp_path: Path) -> None:
    found = run(sys.executable, "-m", "pipx", "--version", cwd=tmp_path)
    if found.returncode != 0:
        pytest.skip("pipx is not installed here (pip install -e '.[dev]')")
    env = clean_env(
        PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"), HOME=str(tmp_path), **offline(),
    )  # fmt: skip
    done = run(
        sys.executable, "-m", "pipx", "install", wheel.wheel, cwd=tmp_path, env=env, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    _runs_from(tmp_path / "bin", tmp_path, env)
    assert os.environ.get("PIPX_HOME") != str(tmp_path / "pipx")  # nothing of the user's touched


def test_uv_tool_installs_the_wheel(wheel: Installed, tmp_path: Path) -> None:
    """``uv tool install`` of the wheel, offline (``--no-index``, the wheelhouse as find-links),
    on this interpreter (uv never downloads a Python here)."""
    beside = Path(sys.executable).parent / "uv"
    uv = str(beside) if beside.exists() else shutil.which("uv") or "uv"
    if run(uv, "--version", cwd=tmp_path).returncode != 0:
        pytest.skip("uv is not installed here (pip install -e '.[dev]')")
    env = clean_env(
        UV_TOOL_DIR=str(tmp_path / "tools"), UV_TOOL_BIN_DIR=str(tmp_path / "bin"),
        UV_CACHE_DIR=str(tmp_path / "cache"), HOME=str(tmp_path), **offline(),
    )  # fmt: skip
    done = run(
        uv, "tool", "install", "--python", sys.executable, wheel.wheel, cwd=tmp_path, env=env,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    _runs_from(tmp_path / "bin", tmp_path, env)
