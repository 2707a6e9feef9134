"""Claude Code headless output: stream-json logs and json results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_trajectories

STREAM = TRANSCRIPTS / "claude-stream-json"
HEADLESS = TRANSCRIPTS / "claude-headless-json"


def one(path: Path) -> Any:
    (t,) = list(read_trajectories(path, report=ReadReport()))
    return t


def test_max_turns_run_with_interleaved_subagent() -> None:
    t = one(STREAM / "perfectsnake-4873604-claude-stream.jsonl")
    assert t.format == "claude-stream-json"
    assert (t.termination.reason, t.metadata["num_turns"]) == ("max_turns", 26)
    assert not t.claimed_completion
    assert "Now let me run the tests and build" in t.final_message
    assert any(c.is_sidechain for c in t.tool_calls) and any(
        not c.is_sidechain for c in t.tool_calls
    )
    # the first user event is the Task prompt inside the subagent, not the user's prompt
    assert t.user_request is None
    assert t.id == "adde8b56-97d9-4889-a391-bd4eda88fd46"
    assert t.file_edits


def test_other_max_turns_runs() -> None:
    for name, last in [
        ("perfectsnake-b2ee321-claude-stream.jsonl", "Now let me run the performance test."),
        ("perfectsnake-69bfacd-claude-stream.jsonl", "Now let me take a screenshot"),
    ]:
        t = one(STREAM / name)
        assert t.termination.reason == "max_turns"
        assert last in t.final_message


def test_success_subtype_with_is_error_is_an_error() -> None:
    t = one(HEADLESS / "pixelstudio-77cfca7-claude_output.json")
    assert t.format == "claude-json"
    assert t.termination.reason == "usage_limit"
    assert t.termination.detail == "Credit balance is too low"
    assert t.final_message is None and not t.claimed_completion


def test_successful_results_and_the_old_format() -> None:
    new = one(HEADLESS / "pixelstudio-495d76f-claude_output.json")
    assert new.claimed_completion and "Hello World" in new.final_message
    noop = one(HEADLESS / "gtpdna-b7a2b26-claude_output.json")
    assert "No changes are needed" in noop.final_message and noop.metadata["num_turns"] == 8
    old = one(HEADLESS / "ccrxt-26dab1e6-claude_output.json")
    assert old.claimed_completion and "successfully added" in old.final_message
    assert old.id == "69ded1b1-49d3-42d7-bf84-5ab45e30f384" and "cost_usd" in old.metadata


def test_stream_without_result_event_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    events = [
        {"type": "system", "subtype": "init", "session_id": "z", "model": "m", "tools": []},
        {"type": "assistant", "session_id": "z", "parent_tool_use_id": None,
         "message": {"id": "a", "content": [{"type": "text", "text": "All done."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    (t,) = read_trajectories(path)
    assert t.termination.reason == "truncated" and t.final_message == "All done."
    assert not t.claimed_completion


def test_verbose_json_array_of_events(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    events = [
        {"type": "system", "subtype": "init", "session_id": "v"},
        {"type": "assistant", "session_id": "v", "parent_tool_use_id": None,
         "message": {"id": "a", "content": [{"type": "tool_use", "id": "t", "name": "Bash",
                                             "input": {"command": "ls"}}]}},
        {"type": "user", "session_id": "v", "parent_tool_use_id": None,
         "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "a"}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "Listed.",
         "session_id": "v"},
    ]  # fmt: skip
    path.write_text(json.dumps(events, indent=2))
    (t,) = read_trajectories(path)
    assert t.format == "claude-json" and t.tool_calls[0].outcome == "success"
    assert t.final_message == "Listed." and t.claimed_completion
