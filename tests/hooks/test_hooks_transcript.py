"""Incremental transcript reading for the Claude Code hook: offsets, resume, rewrites."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import TRANSCRIPTS
from earnest.hooks.claude_code import read_run
from earnest.hooks.core import RunView
from earnest.hooks.state import StateStore
from earnest.trajectory import read_claude_run

CC = TRANSCRIPTS / "claude-code"


def _lines(name: str) -> list[bytes]:
    return (CC / name).read_bytes().splitlines(keepends=True)


def _store(tmp_path: Path) -> StateStore:
    return StateStore(tmp_path / "state")


def _view(trajectory: object) -> RunView:
    return RunView.from_trajectory(trajectory)


def _spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """Record ``(offset, resumed)`` for every forward read of a transcript."""
    from earnest.trajectory.readers import claude_code, claude_tail

    calls: list[tuple[int, bool]] = []
    real = claude_code.read_claude_code_from

    def spy(path, offset=0, session=None, **kw):  # type: ignore[no-untyped-def]
        calls.append((offset, session is not None and session.lines > 0))
        return real(path, offset, session, **kw)

    monkeypatch.setattr(claude_code, "read_claude_code_from", spy)
    monkeypatch.setattr(claude_tail, "read_claude_code_from", spy)
    return calls


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
    calls = _spy_reads(monkeypatch)
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
    # The first call read from the run's prompt (after the first line), the second from
    # the saved offset with the saved reader.
    assert calls == [(len(lines[0]), False), (first_offset, True)]


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

    calls = _spy_reads(monkeypatch)
    state = store.load("claude-code", "s")
    trajectory = read_run(transcript, state, store)
    assert calls == [(len(lines[0]), False)]  # read again from the run, no saved reader
    assert [c.name for c in trajectory.tool_calls] == [
        c.name for c in read_claude_run(transcript).tool_calls
    ]


def test_first_call_reads_only_the_run_of_a_long_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl"  # 9 prompts, ~1 MB
    transcript = tmp_path / "t.jsonl"
    shutil.copy(CC / name, transcript)
    calls = _spy_reads(monkeypatch)
    store = _store(tmp_path)
    trajectory = read_run(transcript, store.load("claude-code", "s"), store)
    start = trajectory.metadata["run_offset"]
    assert calls == [(start, False)] and start > transcript.stat().st_size // 2
    got, want = _view(trajectory), _view(read_claude_run(transcript))
    assert (got.request, got.prompt_key, got.final_text, got.started) == (
        want.request,
        want.prompt_key,
        want.final_text,
        want.started,
    )
    # Turn numbers count from where reading began; everything else is the same.
    unnumbered = [{**r, "turn_index": None} for r in got.tool_results]
    assert unnumbered == [{**r, "turn_index": None} for r in want.tool_results]


def test_appended_part_of_a_message_from_before_the_run_reads_again(tmp_path: Path) -> None:
    """A line that continues an API response begun before the prompt: merge as a full read."""

    def record(kind: str, mid: str | None, content: object) -> bytes:
        message: dict[str, object] = {"role": kind, "content": content}
        if mid:
            message["id"] = mid
        return (json.dumps({"type": kind, "sessionId": "s", "message": message}) + "\n").encode()

    said = [{"type": "text", "text": "working on it"}]
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(
        record("user", None, "first")
        + record("assistant", "m1", said)
        + record("user", None, "second")
    )
    store = _store(tmp_path)
    state = store.load("claude-code", "s")
    read_run(transcript, state, store)
    store.save(state)
    with transcript.open("ab") as fh:
        fh.write(record("assistant", "m1", [*said, {"type": "text", "text": "and done"}]))
    state = store.load("claude-code", "s")
    trajectory = read_run(transcript, state, store)
    whole = read_claude_run(transcript)
    assert trajectory.final_message == whole.final_message == "and done"
    assert [m.text for m in trajectory.messages] == [m.text for m in whole.messages]
    assert state.offset == transcript.stat().st_size
