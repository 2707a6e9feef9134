"""`earnest hook <cli>` as a process: always exit 0, errors allow the stop, fast imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, run_earnest

ADAPTERS = ["claude-code", "gemini", "codex"]


def _hook(cli: str, stdin: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run_earnest(
        "hook", cli, input=stdin, env={"EARNEST_STATE_DIR": str(tmp_path / "state"), **env}
    )


def _one_stderr_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


@pytest.mark.parametrize("cli", ADAPTERS)
@pytest.mark.parametrize(
    "stdin",
    ["", "not json at all", "[1, 2]", '{"cwd": 7}', '{"session_id": "s"}', "{"],
)
def test_garbage_stdin_allows_with_one_stderr_line(cli: str, stdin: str, tmp_path: Path) -> None:
    result = _hook(cli, stdin, tmp_path)
    assert result.returncode == 0
    assert "block" not in result.stdout and "deny" not in result.stdout
    line = _one_stderr_line(result)
    assert line.startswith(f"earnest hook {cli}: ") and line.endswith("stop allowed")


@pytest.mark.parametrize("cli", ADAPTERS)
def test_missing_transcript_allows(cli: str, tmp_path: Path) -> None:
    payload = {
        "session_id": "s1",
        "transcript_path": str(tmp_path / "nope.jsonl"),
        "agent_transcript_path": str(tmp_path / "nope.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "AfterAgent" if cli == "gemini" else "Stop",
        "stop_hook_active": False,
    }
    result = _hook(cli, json.dumps(payload), tmp_path)
    assert result.returncode == 0
    assert "block" not in result.stdout and "deny" not in result.stdout
    assert "transcript not found" in _one_stderr_line(result)


def test_cwd_that_does_not_exist_allows(tmp_path: Path) -> None:
    payload = {"session_id": "s", "transcript_path": "/x", "cwd": str(tmp_path / "gone")}
    result = _hook("claude-code", json.dumps(payload), tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert "cwd: not a folder" in _one_stderr_line(result)


@pytest.mark.parametrize("value", ["1", "true"])
def test_disable_env_allows_without_reading(value: str, tmp_path: Path) -> None:
    result = _hook("claude-code", "this is not JSON", tmp_path, EARNEST_HOOK_DISABLE=value)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""
    assert not (tmp_path / "state").exists()


def test_unknown_cli_allows_and_says_so(tmp_path: Path) -> None:
    result = _hook("cursor", "{}", tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert "unknown CLI 'cursor'" in _one_stderr_line(result)


def test_adapter_help(tmp_path: Path) -> None:
    result = run_earnest("hook", "claude-code", "--help")
    assert result.returncode == 0 and "EARNEST_HOOK_DISABLE" in result.stdout


def test_bad_project_config_allows_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text("[hooks]\nmax_downgrades = 'two'\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    payload = {"session_id": "s", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    result = _hook("claude-code", json.dumps(payload), tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    line = _one_stderr_line(result)
    assert "earnest.toml: hooks.max_downgrades: must be a whole number" in line


def test_hook_path_imports_no_cli_framework(tmp_path: Path) -> None:
    """The fast path: running a hook must not import typer, click, rich or yaml."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n"
    )
    payload = json.dumps(
        {"session_id": "s", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    )
    code = (
        "import io, sys\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "from earnest.__main__ import main\n"
        "rc = main(['hook', 'claude-code'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'rich', 'yaml'})\n"
        "print('HEAVY', heavy, rc)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC), EARNEST_STATE_DIR=str(tmp_path / "state"))
    result = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, env=env, check=False
    )
    assert "HEAVY [] 0" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("cli", ["claude-code", "codex"])
def test_events_other_than_stop_are_left_alone(cli: str, tmp_path: Path) -> None:
    payload = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "PreToolUse"}
    result = _hook(cli, json.dumps(payload), tmp_path)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
