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
