"""The hook's state folder: location, atomic saves, pruning, and the guarded reader blob."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from earnest.hooks.state import STATE_VERSION, SessionState, StateStore, default_state_dir


def test_state_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("EARNEST_STATE_DIR", raising=False)
    assert default_state_dir() == tmp_path / "home" / ".local" / "state" / "earnest" / "hooks"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "earnest" / "hooks"
    monkeypatch.setenv("EARNEST_STATE_DIR", str(tmp_path / "explicit"))
    assert default_state_dir() == tmp_path / "explicit"


def test_round_trip_and_separation(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    state = store.load("claude-code", "sess")
    state.blocks, state.offset, state.prompt_key = 2, 1234, "p"
    path = store.save(state)
    assert json.loads(path.read_text())["version"] == STATE_VERSION
    again = store.load("claude-code", "sess")
    assert (again.blocks, again.offset, again.prompt_key) == (2, 1234, "p")
    # Another session, another agent of the same session, another CLI: all fresh.
    assert store.load("claude-code", "other").blocks == 0
    assert store.load("claude-code", "sess", "agent-1").blocks == 0
    assert store.load("codex", "sess").blocks == 0
    assert not list(tmp_path.glob(".*.tmp"))


def test_session_id_never_becomes_a_path(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    path = store.save(SessionState(cli="claude-code", session_id="../../etc/passwd"))
    assert path.parent == tmp_path / "state"
    assert "passwd" not in path.name


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"version": 999, "state": {}}', '{"version": 1, "state": {"x": 1}}'],
)
def test_unusable_state_files_start_fresh(tmp_path: Path, content: str) -> None:
    store = StateStore(tmp_path)
    store.path_for("claude-code", "s").write_text(content)
    state = store.load("claude-code", "s")
    assert state.blocks == 0 and state.offset == 0


def test_new_prompt_resets_budget() -> None:
    state = SessionState(cli="claude-code", session_id="s")
    state.start_prompt("p1", "do it")
    state.blocks = 2
    state.start_prompt("p1", "do it")
    assert state.blocks == 2
    state.start_prompt("p2", "do the next thing")
    assert state.blocks == 0 and state.request == "do the next thing"


def test_prune_removes_only_stale_files(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    old = store.save(SessionState(cli="claude-code", session_id="old"))
    stale = time.time() - 40 * 24 * 3600
    os.utime(old, (stale, stale))
    store.save(SessionState(cli="claude-code", session_id="new"))  # a new file prunes
    assert not old.exists()
    assert store.path_for("claude-code", "new").exists()


def test_blob_is_refused_when_others_can_write_it(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    state = SessionState(cli="claude-code", session_id="s")
    store.save_blob(state, b"payload")
    assert store.load_blob(state) == b"payload"
    blob = store.blob_path(state)
    assert blob.stat().st_mode & 0o077 == 0  # private to the user
    os.chmod(blob, 0o666)
    assert store.load_blob(state) is None
    os.chmod(blob, 0o600)
    os.chmod(blob.parent, 0o777)
    assert store.load_blob(state) is None
    os.chmod(blob.parent, 0o700)
    store.drop_blob(state)
    assert store.load_blob(state) is None


def test_a_reader_holding_a_secret_keeps_a_text_free_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # h12a stopped saving the reader when it held a secret; the next stops then had no
    # checkpoint at all. The run's start is kept instead, as offsets and message ids.
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from claude_session import Session

    from earnest.hooks.claude_code import read_run
    from earnest.trajectory.readers import claude_tail

    secret = "sk-ant-api03-" + "Q7x" * 20
    session = Session(tmp_path)
    for i in range(40):  # earlier runs: the checkpoint must save scanning back past them
        session.prompt(f"question {i}")
        session.say(f"answer {i}")
    session.prompt(f"Deploy with {secret} and write notes.txt")
    (session.workspace / "notes.txt").write_text("hi\n")
    session.tool("Write", {"file_path": str(session.workspace / "notes.txt")}, "File created")
    session.say("Done: I wrote notes.txt.")
    store = StateStore(session.state)
    state = store.load("claude-code", session.session_id)
    first = read_run(session.transcript, state, store)
    store.save(state)
    assert not store.blob_path(state).exists()  # the reader holds the secret: not saved
    saved = b"".join(p.read_bytes() for p in session.state.rglob("*") if p.is_file())
    assert secret.encode() not in saved
    run = json.loads(store.path_for("claude-code", session.session_id).read_text())["state"]
    start = run["reader"]["run"]
    assert 0 < start["offset"] <= start["prompt"] < run["offset"]
    session.say("Still done.")

    def no_scan(*args: object, **kwargs: object) -> object:
        raise AssertionError("scanned the transcript again")

    monkeypatch.setattr(claude_tail, "find_run_start", no_scan)
    state = store.load("claude-code", session.session_id)
    second = read_run(session.transcript, state, store)
    assert second.user_request == first.user_request
    assert [c.name for c in second.tool_calls] == ["Write"]
    assert second.final_message == "Still done."
    assert state.offset == session.transcript.stat().st_size
