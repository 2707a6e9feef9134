"""`earnest hook <cli>` as a process: always exit 0, errors allow the stop, fast imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, run_earnest

ADAPTERS = ["claude-code", "gemini", "codex", "qwen", "copilot"]


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


def _not_a_file(kind: str, tmp_path: Path) -> Path:
    if kind == "device":
        return Path("/dev/zero")
    path = tmp_path / f"a-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "gone.jsonl")
    return path


@pytest.mark.parametrize("cli", ADAPTERS)
@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("device", "is a character device, not a transcript file"),
        ("fifo", "is a FIFO (named pipe), not a transcript file"),
        ("folder", "is a folder, not a transcript file"),
        ("dangling", "is a symlink to nothing"),
    ],
)
def test_a_transcript_path_that_is_not_a_file_is_named_for_what_it_is(
    cli: str, kind: str, said: str, tmp_path: Path
) -> None:
    # It was found: "transcript not found" would send the user looking in the wrong place.
    # A FIFO is never opened (that would block the stop until a writer came).
    path = _not_a_file(kind, tmp_path)
    payload = {
        "session_id": "s1",
        "transcript_path": str(path),
        "cwd": str(tmp_path),
        "hook_event_name": "AfterAgent" if cli == "gemini" else "Stop",
        "stop_hook_active": False,
    }
    result = _hook(cli, json.dumps(payload), tmp_path)
    assert result.returncode == 0
    assert "block" not in result.stdout and "deny" not in result.stdout
    line = _one_stderr_line(result)
    assert f"{path}: {said}" in line and "not found" not in line.replace("symlink to nothing", "")


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
    result = _hook("windsurf", "{}", tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert "unknown CLI 'windsurf'" in _one_stderr_line(result)


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


@pytest.mark.parametrize("cli", ADAPTERS)
def test_oversized_stdin_is_not_read_whole(cli: str, tmp_path: Path) -> None:
    """Hook input past the bound is bad input (issue 22, item 12): the stop is allowed with
    one line saying why, and the rest of the input is never read."""
    from earnest.hooks.entry import MAX_STDIN_BYTES

    payload = {"session_id": "s", "cwd": str(tmp_path), "pad": "x" * (MAX_STDIN_BYTES + 10)}
    result = _hook(cli, json.dumps(payload), tmp_path)
    assert result.returncode == 0
    assert "block" not in result.stdout and "deny" not in result.stdout
    line = _one_stderr_line(result)
    assert f"hook input larger than {MAX_STDIN_BYTES} bytes" in line and line.endswith("allowed")


def test_the_bound_reads_at_most_one_byte_past_it() -> None:
    """The reader asks for the bound plus one byte, never the whole stream."""
    import io

    from earnest.errors import InputError
    from earnest.hooks.entry import _read_stdin

    asked: list[int] = []

    class Counting(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            asked.append(-1 if size is None else size)
            return super().read(size)

    stream = Counting(b"{" + b" " * 5000 + b"}")
    holder = io.TextIOWrapper(stream)
    with pytest.raises(InputError, match="larger than 100 bytes"):
        _read_stdin(holder, limit=100)
    assert asked == [101] and stream.tell() == 101
    assert _read_stdin(io.TextIOWrapper(io.BytesIO(b'{"a": 1}')), limit=100) == b'{"a": 1}'
