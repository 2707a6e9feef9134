"""Claude Code 2.1.x subagent files are read and their verified effects credited (defect 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from claude_session import Session, blocked

from conftest import run_earnest

DATA = Path(__file__).resolve().parents[1] / "data" / "hooks" / "claude-subagent"
AGENT = "a1b2c3d4e5f6a7b8c"


def _subagent_file(session: Session, agent_id: str, records: list[dict[str, Any]]) -> Path:
    folder = session.transcript.parent / session.transcript.stem / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"agent-{agent_id}.jsonl"
    base = {
        "isSidechain": True,
        "userType": "external",
        "cwd": str(session.workspace),
        "sessionId": session.session_id,
        "version": "2.1.197",
        "agentId": agent_id,
        "timestamp": "2026-01-01T00:00:30Z",
    }
    path.write_text(
        "".join(json.dumps({**base, "uuid": f"s-{i}", **r}) + "\n" for i, r in enumerate(records))
    )
    return path


def _edit_by_subagent(session: Session, app: Path) -> None:
    _subagent_file(
        session,
        AGENT,
        [
            {
                "type": "user",
                "message": {"role": "user", "content": "Fix the off-by-one in app.py"},
            },
            {
                "type": "assistant",
                "message": {
                    "id": "msg_sub_1",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_sub_edit",
                            "name": "Edit",
                            "input": {
                                "file_path": str(app),
                                "old_string": "xs[1:]",
                                "new_string": "xs",
                            },
                        }
                    ],
                },
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_sub_edit",
                            "content": f"The file {app} has been updated.",
                        }
                    ],
                },
                "toolUseResult": {"filePath": str(app), "oldString": "xs[1:]", "newString": "xs"},
            },
            {
                "type": "assistant",
                "message": {
                    "id": "msg_sub_2",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Fixed total() in app.py."}],
                },
            },
        ],
    )


def _agent_call(session: Session, agent_id: str) -> None:
    session.tool(
        "Agent",
        {
            "description": "Fix the bug",
            "prompt": "Fix the off-by-one in app.py",
            "subagent_type": "general-purpose",
        },
        "Fixed total() in app.py.",
        structured={
            "status": "completed",
            "prompt": "Fix the off-by-one in app.py",
            "agentId": agent_id,
            "content": [{"type": "text", "text": "Fixed total() in app.py."}],
            "totalDurationMs": 4100,
            "totalTokens": 2100,
            "totalToolUseCount": 1,
            "toolStats": {"readCount": 0, "searchCount": 0, "bashCount": 0, "editFileCount": 1},
        },
    )


def test_a_fix_made_by_a_subagent_is_credited_to_the_main_stop(tmp_path: Path) -> None:
    session = Session(tmp_path)
    app = session.workspace / "app.py"
    session.prompt("Fix the bug in app.py")
    app.write_text("def total(xs):\n    return sum(xs)\n")  # the subagent's edit, on disk
    _edit_by_subagent(session, app)
    _agent_call(session, AGENT)
    session.say("Done — the subagent fixed the bug in app.py.")
    assert not blocked(session.stop())
    result = run_earnest("trajectory", "score", str(session.transcript), "--format", "jsonl")
    assert json.loads(result.stdout.splitlines()[0])["outcome"] == "backed"


def test_a_subagent_that_changed_nothing_does_not_satisfy_the_stop(tmp_path: Path) -> None:
    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py")
    _subagent_file(
        session,
        AGENT,
        [
            {"type": "user", "message": {"role": "user", "content": "Fix the off-by-one"}},
            {
                "type": "assistant",
                "message": {
                    "id": "msg_sub_1",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Fixed it."}],
                },
            },
        ],
    )
    _agent_call(session, AGENT)
    session.say("Done — the subagent fixed the bug in app.py.")
    assert blocked(session.stop())


def test_an_agent_id_that_is_not_a_plain_name_is_never_followed(tmp_path: Path) -> None:
    session = Session(tmp_path)
    app = session.workspace / "app.py"
    session.prompt("Fix the bug in app.py")
    app.write_text("def total(xs):\n    return sum(xs)\n")
    _edit_by_subagent(session, app)
    escaped = session.transcript.parent / "x" / "subagents"
    escaped.mkdir(parents=True)
    (
        session.transcript.parent / session.transcript.stem / "subagents" / f"agent-{AGENT}.jsonl"
    ).rename(escaped / "agent-y.jsonl")
    _agent_call(session, "../../x/subagents/agent-y")
    session.say("Done — the subagent fixed the bug in app.py.")
    assert blocked(session.stop())


def test_real_claude_code_session_reads_its_subagent_file(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(DATA, folder)
    main = folder / "4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl"
    result = run_earnest("trajectory", "convert", str(main))
    assert result.returncode == 0, result.stderr
    t = json.loads(result.stdout.splitlines()[0])
    calls = [(c["name"], c.get("is_sidechain", False)) for c in t["tool_calls"]]
    assert ("Task", False) in calls and ("WebSearch", True) in calls
    assert t["id"] == "4b2030ed-5563-49ea-b703-6a002f2d3cc8"
