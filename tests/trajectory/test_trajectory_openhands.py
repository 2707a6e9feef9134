"""OpenHands event arrays: actions answered by observations through ``cause``."""

from __future__ import annotations

from conftest import TRANSCRIPTS
from earnest.trajectory import read_trajectories

OH = TRANSCRIPTS / "openhands"


def test_rename_backed_by_mv_exit_code_zero() -> None:
    (t,) = read_trajectories(OH / "openhands-trajs-wrong_initial_state.json")
    assert t.user_request == "Please rename game_2048.py to 2048.py"
    read1, mv, read2 = t.tool_calls
    assert (read1.id, mv.id, read2.id) == ("3", "5", "7")  # ids are not contiguous
    assert mv.name == "execute_bash" and mv.arguments["command"].startswith("mv ")
    assert (mv.outcome, mv.exit_code) == ("success", 0)
    assert read1.name == "str_replace_editor" and read1.arguments["command"] == "view"
    assert t.termination.reason == "normal" and "successfully renamed" in t.final_message
    assert t.file_edits == ()


def test_edit_creates_the_game_file() -> None:
    (t,) = read_trajectories(OH / "openhands-trajs-basic.json")
    (edit,) = t.tool_calls
    assert edit.name == "str_replace_editor" and edit.outcome == "success"
    assert [(e.path, e.kind) for e in t.file_edits] == [("/workspace/game_2048.py", "create")]
    assert t.claimed_completion


def test_gui_mode_still_running_server_has_no_exit_code() -> None:
    (t,) = read_trajectories(OH / "openhands-trajs-basic_gui_mode.json")
    server = next(c for c in t.tool_calls if "http.server" in c.arguments.get("command", ""))
    assert server.exit_code == -1 and server.outcome == "unknown"
    assert len(t.file_edits) == 2


def test_pure_chat() -> None:
    (t,) = read_trajectories(OH / "openhands-trajs-basic_interactions.json")
    assert t.tool_calls == () and t.termination.is_normal
    assert sum(m.kind == "prompt" for m in t.messages) == 3
