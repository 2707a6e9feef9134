"""Codex CLI: the real rollout file, and ``codex exec --json`` event logs.

No real ``exec --json`` log was collected (tests/data/transcripts/SOURCE.md); the exec
cases follow the event shapes documented for ``codex exec --json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_trajectories


def write(path: Path, events: list[Any]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_real_rollout() -> None:
    report = ReadReport()
    (t,) = read_trajectories(
        TRANSCRIPTS / "codex/kvsankar-real-codex-exec-session-01-redacted.jsonl", report=report
    )
    assert t.format == "codex-rollout" and t.id == "019e9625-802f-7e91-840a-cfe88d14117a"
    assert t.user_request == "[REDACTED_PROMPT]"  # not the <environment_context> block
    assert t.final_message == "[REDACTED_ASSISTANT_TEXT]"
    assert t.termination.is_normal and t.tool_calls == ()
    assert t.metadata["cli_version"] == "0.135.0"
    assert report.skipped_lines == 0


def test_rollout_tool_calls_with_exit_codes_and_patches(tmp_path: Path) -> None:
    path = write(tmp_path / "rollout.jsonl", [
        {"type": "session_meta", "payload": {"id": "r"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "fix the test"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
         "arguments": "{\"command\": [\"pytest\"]}", "call_id": "c1"}},
        {"type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "c1",
         "exit_code": 1, "aggregated_output": "1 failed"}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
         "output": "{\"output\": \"1 failed\", \"metadata\": {\"exit_code\": 1}}"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch",
         "input": "*** Begin Patch", "call_id": "c2"}},
        {"type": "event_msg", "payload": {"type": "patch_apply_end", "call_id": "c2",
         "success": True, "changes": {"/w/a.py": {"update": {}}, "/w/b.py": {"add": {}}}}},
        {"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}},
    ])  # fmt: skip
    (t,) = read_trajectories(path)
    shell, patch = t.tool_calls
    assert (shell.outcome, shell.exit_code) == ("error", 1)
    assert patch.outcome == "success"
    assert sorted((e.path, e.kind) for e in t.file_edits) == [
        ("/w/a.py", "modify"),
        ("/w/b.py", "create"),
    ]
    assert t.termination.reason == "interrupted"


def test_exec_json_events(tmp_path: Path) -> None:
    path = write(tmp_path / "exec.jsonl", [
        {"type": "thread.started", "thread_id": "th-1"},
        {"type": "turn.started"},
        {"type": "item.started", "item": {"id": "i0", "type": "command_execution",
         "command": "bash -lc ls", "aggregated_output": "", "status": "in_progress"}},
        {"type": "item.completed", "item": {"id": "i0", "type": "command_execution",
         "command": "bash -lc ls", "aggregated_output": "a.py\n", "exit_code": 0,
         "status": "completed"}},
        {"type": "item.completed", "item": {"id": "i1", "type": "file_change", "status": "completed",
         "changes": [{"path": "a.py", "kind": "update"}, {"path": "old.py", "kind": "delete"}]}},
        {"type": "item.completed", "item": {"id": "i2", "type": "mcp_tool_call", "server": "gh",
         "tool": "create_issue", "arguments": {"title": "x"}, "status": "failed",
         "error": {"message": "denied"}}},
        {"type": "item.completed", "item": {"id": "i3", "item_type": "reasoning", "text": "hm"}},
        {"type": "item.completed", "item": {"id": "i4", "type": "agent_message", "text": "Done."}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}},
    ])  # fmt: skip
    (t,) = read_trajectories(path)
    assert t.format == "codex-exec" and t.id == "th-1"
    cmd, change, mcp = t.tool_calls
    assert change.name == "apply_patch" and change.outcome == "success"
    assert "*** Update File: a.py\n*** Delete File: old.py" in change.arguments["input"]
    assert (cmd.name, cmd.outcome, cmd.exit_code, cmd.output_excerpt) == (
        "shell",
        "success",
        0,
        "a.py\n",
    )
    assert [(e.path, e.kind) for e in t.file_edits] == [("a.py", "modify"), ("old.py", "delete")]
    assert (mcp.name, mcp.outcome, mcp.error) == ("mcp__gh__create_issue", "error", "denied")
    assert t.claimed_completion and t.metadata["usage"]["output_tokens"] == 5


def test_exec_turn_failed_and_cut_logs(tmp_path: Path) -> None:
    failed = write(tmp_path / "f.jsonl", [
        {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
        {"type": "turn.failed", "error": {"message": "You've hit your usage limit."}},
    ])  # fmt: skip
    (t,) = read_trajectories(failed)
    assert t.termination.reason == "usage_limit"
    cut = write(
        tmp_path / "c.jsonl",
        [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"}],
    )
    (t,) = read_trajectories(cut)
    assert t.termination.reason == "truncated"


def test_the_run_read_from_its_prompt_is_the_whole_reads_run(tmp_path: Path) -> None:
    """The stop hook parses only the current run (from the last prompt, found backwards, with
    the session_meta line): the same request, calls and final message as a whole read,
    behind real earlier runs."""
    from earnest.trajectory.readers.codex_rollout import run_start

    act = TRANSCRIPTS.parent / "act"
    for path in [
        TRANSCRIPTS / "codex/kvsankar-real-codex-exec-session-01-redacted.jsonl",
        act / "codex-0.171-rollout-honest.jsonl",
        act / "codex-0.171-rollout-idles.jsonl",
    ]:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        long = tmp_path / path.name
        long.write_text("".join(lines[:1] + lines[1:] * 3), encoding="utf-8")
        start = run_start(long)
        assert start > 0, path.name
        (whole,) = read_trajectories(long, format="codex-rollout", run_only=True)
        (tail,) = read_trajectories(long, format="codex-rollout", run_only=True, start=start)
        assert tail.user_request == whole.user_request, path.name
        assert tail.final_message == whole.final_message, path.name
        assert [(c.name, c.outcome, c.arguments) for c in tail.tool_calls] == [
            (c.name, c.outcome, c.arguments) for c in whole.tool_calls
        ], path.name
        assert (tail.id, tail.metadata.get("cwd")) == (whole.id, whole.metadata.get("cwd"))
