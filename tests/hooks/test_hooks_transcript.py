"""Incremental transcript reading for the Claude Code hook: offsets, resume, rewrites."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import TRANSCRIPTS, require_shared
from earnest.hooks.claude_code import read_run
from earnest.hooks.core import RunView
from earnest.hooks.state import StateStore
from earnest.trajectory import read_claude_run

CC = TRANSCRIPTS / "claude-code"


@pytest.fixture(autouse=True)
def _shared() -> None:
    require_shared()


def _lines(name: str) -> list[bytes]:
    return (CC / name).read_bytes().splitlines(keepends=True)


def _store(tmp_path: Path) -> StateStore:
    return StateStore(tmp_path / "state")


def _view(trajectory: object) -> RunView:
    return RunView.from_trajectory(trajectory)


@pytest.mark.parametrize(
    "name",
    [
        "willitrain-33c772d9-windows-ide.jsonl",  # split messages, compaction
        "kimuson-fe5e1c67-orchestrator-nextjs-todo-sidechains.jsonl",  # inline sidechains
        "mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl",  # invalid JSON lines
        "drmaciver-coverage-test-fix.jsonl",  # stop-hook feedback inside the run
    ],
)
def test_reading_in_pieces_equals_reading_at_once(tmp_path: Path, name: str) -> None:
    lines = _lines(name)
    transcript = tmp_path / "t.jsonl"
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    # Cut at uneven places, including inside runs of lines that share one message.id.
    cuts = sorted({len(lines) // 7, len(lines) // 3, len(lines) // 2 + 1, len(lines) - 2})
    written = 0
    for cut in [*cuts, len(lines)]:
        with transcript.open("ab") as fh:
            fh.writelines(lines[written:cut])
        written = cut
        trajectory = read_run(transcript, state, store)
        assert state.offset == transcript.stat().st_size
        store.save(state)
        state = store.load("claude-code", "s")
    whole = read_claude_run(CC / name)
    got, want = _view(trajectory), _view(whole)
    assert got.request == want.request
    assert got.final_text == want.final_text
    assert [r["id"] for r in got.tool_results] == [r["id"] for r in want.tool_results]
    assert [r["outcome"] for r in got.tool_results] == [r["outcome"] for r in want.tool_results]
    assert got.prompt_key == want.prompt_key


def test_offset_advances_and_reader_is_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import earnest.trajectory

    calls: list[tuple[int, bool]] = []
    real = earnest.trajectory.read_claude_code_from

    def spy(path, offset=0, session=None, **kw):  # type: ignore[no-untyped-def]
        calls.append((offset, session is not None))
        return real(path, offset, session, **kw)

    monkeypatch.setattr(earnest.trajectory, "read_claude_code_from", spy)
    lines = _lines("drmaciver-stop-hook-reflection-first-stop.jsonl")
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b"".join(lines[:6]))
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    first = read_run(transcript, state, store)
    first_offset = state.offset
    assert first_offset == transcript.stat().st_size
    store.save(state)
    assert store.blob_path(state).exists()

    with transcript.open("ab") as fh:
        fh.writelines(lines[6:])
    state = store.load("claude-code", "s")
    assert state.offset == first_offset
    second = read_run(transcript, state, store)
    assert state.offset == transcript.stat().st_size > first_offset
    assert len(second.tool_calls) > len(first.tool_calls)
    assert second.user_request == first.user_request
    # The second call started at the saved offset with the saved reader, not from byte 0.
    assert calls == [(0, False), (first_offset, True)]


def test_half_written_last_line_waits(tmp_path: Path) -> None:
    lines = _lines("drmaciver-hello-world-script.jsonl")
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b"".join(lines[:3]) + lines[3][:50])
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    assert state.offset == len(b"".join(lines[:3]))
    with transcript.open("ab") as fh:
        fh.write(lines[3][50:])
        fh.writelines(lines[4:])
    trajectory = read_run(transcript, state, store)
    assert state.offset == transcript.stat().st_size
    assert [c.name for c in trajectory.tool_calls] == ["Write", "Bash"]


def test_rewritten_transcript_is_read_again(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    shutil.copy(CC / "drmaciver-hello-world-script.jsonl", transcript)
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    store.save(state)
    # Same length, different content before the offset: the saved reader must not be used.
    other = {"type": "user", "message": {"role": "user", "content": "What is 2+2?"}}
    text = (json.dumps(other) + "\n").encode()
    size = transcript.stat().st_size
    transcript.write_bytes(text + b" " * (size - len(text) - 1) + b"\n")
    state = store.load("claude-code", "s")
    trajectory = read_run(transcript, state, store)
    assert trajectory.user_request == "What is 2+2?"
    assert trajectory.tool_calls == ()


def test_shorter_transcript_is_read_again(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = _lines("drmaciver-hello-world-script.jsonl")
    transcript.write_bytes(b"".join(lines))
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    transcript.write_bytes(b"".join(lines[:3]))
    trajectory = read_run(transcript, state, store)
    assert state.offset == transcript.stat().st_size
    assert [c.name for c in trajectory.tool_calls] == ["Write"]


def test_damaged_blob_falls_back_to_a_full_read(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    shutil.copy(CC / "drmaciver-hello-world-script.jsonl", transcript)
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    store.save(state)
    store.blob_path(state).write_bytes(b"\x80\x05garbage")
    state = store.load("claude-code", "s")
    trajectory = read_run(transcript, state, store)
    assert [c.name for c in trajectory.tool_calls] == ["Write", "Bash"]


def test_blob_newer_than_the_state_file_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that saved its reader but died before saving the state must not be resumed."""
    import earnest.trajectory

    lines = _lines("drmaciver-stop-hook-reflection-first-stop.jsonl")
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b"".join(lines[:6]))
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    store.save(state)
    with transcript.open("ab") as fh:
        fh.writelines(lines[6:])
    read_run(transcript, store.load("claude-code", "s"), store)  # blob saved, state not

    calls: list[int] = []
    real = earnest.trajectory.read_claude_code_from

    def spy(path, offset=0, session=None, **kw):  # type: ignore[no-untyped-def]
        calls.append(offset)
        return real(path, offset, session, **kw)

    monkeypatch.setattr(earnest.trajectory, "read_claude_code_from", spy)
    state = store.load("claude-code", "s")
    trajectory = read_run(transcript, state, store)
    assert calls == [0]  # read again from the start
    assert [c.name for c in trajectory.tool_calls] == [
        c.name for c in read_claude_run(transcript).tool_calls
    ]
