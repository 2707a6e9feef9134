"""OpenAI-style chat messages in their containers, with tool calls and tool results."""

from __future__ import annotations

import json
from pathlib import Path

from earnest.trajectory import ReadReport, read_trajectories

CONVERSATION = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Create notes.txt"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "write_file", "arguments": '{"path": "notes.txt", "content": "x"}'}},
        {"id": "c2", "type": "function", "function": {"name": "run", "arguments": "{bad json"}},
    ]},
    {"role": "tool", "tool_call_id": "c1", "content": "written"},
    {"role": "tool", "tool_call_id": "c2", "content": "<returncode>1</returncode>\nno such"},
    {"role": "assistant", "content": "Created notes.txt."},
]  # fmt: skip


def check(t: object) -> None:
    from earnest.trajectory import Trajectory

    assert isinstance(t, Trajectory)
    assert t.user_request == "Create notes.txt" and t.final_message == "Created notes.txt."
    write, run = t.tool_calls
    assert write.arguments == {"path": "notes.txt", "content": "x"} and write.outcome == "success"
    assert run.arguments == {"raw": "{bad json"}
    assert (run.outcome, run.exit_code) == ("error", 1)
    assert [(e.path, e.kind) for e in t.file_edits] == [("notes.txt", "create")]
    assert t.termination.is_normal and t.format == "openai-chat"


def test_array_object_and_jsonl_containers(tmp_path: Path) -> None:
    array = tmp_path / "a.json"
    array.write_text(json.dumps(CONVERSATION, indent=1))
    obj = tmp_path / "b.json"
    obj.write_text(json.dumps({"messages": CONVERSATION}))
    lines = tmp_path / "c.jsonl"
    lines.write_text("".join(json.dumps(m) + "\n" for m in CONVERSATION))
    many = tmp_path / "d.jsonl"
    many.write_text(
        json.dumps({"id": "x1", "messages": CONVERSATION})
        + "\n"
        + json.dumps({"messages": CONVERSATION})
        + "\n"
    )
    for path in (array, obj, lines):
        (t,) = read_trajectories(path)
        check(t)
    first, second = read_trajectories(many)
    check(first)
    check(second)
    assert first.id == "x1" and second.id == "d#2"


def test_tool_message_without_a_call_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"},
                                {"role": "tool", "content": "orphan"},
                                {"role": "wizard", "content": "?"},
                                {"role": "assistant", "content": "hello"}]))  # fmt: skip
    report = ReadReport()
    (t,) = read_trajectories(path, report=report)
    assert report.skipped_lines == 2 and t.final_message == "hello"


def test_ending_on_a_tool_call_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(CONVERSATION[:4]))
    (t,) = read_trajectories(path)
    assert t.termination.reason == "truncated"
    assert [c.outcome for c in t.tool_calls] == ["success", "unknown"]
