"""Gemini CLI: stream-json logs (several sessions per file) and native chat sessions."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_trajectories

GEMINI = TRANSCRIPTS / "gemini-cli"


def test_two_inits_are_two_sessions() -> None:
    report = ReadReport()
    first, second = read_trajectories(GEMINI / "metaphi-figma-010ac575-stream.jsonl", report=report)
    assert (first.id, second.id) == (
        "6727b31e-11a1-4351-b526-77ba7b90da09",
        "65b8f8e4-6941-4eba-b2b8-a3f492435908",
    )
    assert first.termination.reason == "normal" and first.claimed_completion
    assert "pushed to the remote repository" in first.final_message  # delta chunks joined
    assert first.metadata["stats"]["tool_calls"] == 40 == len(first.tool_calls)
    # the second session ends on a git push with no result and no result event
    assert second.termination.reason == "truncated"
    assert second.tool_calls[-1].outcome == "unknown"
    assert "git push" in second.tool_calls[-1].arguments["command"]
    # the harness's prompt written before each init belongs to the session it opens
    assert second.messages[0].text.startswith("Figma URL:")
    assert report.skipped_lines == 0
    assert {e.kind for e in first.file_edits} == {"create"}
    assert any(c.outcome == "error" for c in first.tool_calls)


def test_result_error_is_an_api_error() -> None:
    first, _ = read_trajectories(GEMINI / "metaphi-figma-49bdd49a-stream-api-error.jsonl")
    assert first.termination.reason == "api_error"
    assert "INVALID_ARGUMENT" in first.termination.detail
    assert len(first.tool_calls) == 47


def test_no_result_event_is_truncated() -> None:
    (t,) = read_trajectories(GEMINI / "metaphi-figma-d00f7a9b-stream-no-result.jsonl")
    assert t.termination.reason == "truncated"
    assert len(t.tool_calls) == 41
    assert sum(c.outcome == "unknown" for c in t.tool_calls) == 1


def test_native_chat_session() -> None:
    (t,) = read_trajectories(GEMINI / "metaphi-native-chat-session-7befeae5.json")
    assert t.format == "gemini-cli-session"
    assert t.id == "7befeae5-6b85-4b89-a3e3-c161793cc484"
    assert len(t.tool_calls) == 62
    assert sum(c.outcome == "error" for c in t.tool_calls) == 2
    assert len(t.file_edits) == 14 and t.claimed_completion
    skill = t.tool_calls[0]
    assert skill.name == "activate_skill" and "not found" in skill.output_excerpt


def test_a_run_only_read_builds_the_last_run_alone(tmp_path: Path) -> None:
    """A stop's read (``run_only``) builds only the messages from the last prompt on: the
    real session behind two earlier copies of itself gives the run of the session alone."""
    real = TRANSCRIPTS / "gemini-cli" / "metaphi-native-chat-session-7befeae5.json"
    data = json.loads(real.read_text(encoding="utf-8"))
    (alone,) = read_trajectories(real, format="gemini-cli-session", run_only=True)
    longer = tmp_path / "session-long.json"
    longer.write_text(json.dumps({**data, "messages": data["messages"] * 3}), encoding="utf-8")
    (run,) = read_trajectories(longer, format="gemini-cli-session", run_only=True)
    assert run.user_request == alone.user_request and run.final_message == alone.final_message
    assert [(c.name, c.outcome, c.arguments) for c in run.tool_calls] == [
        (c.name, c.outcome, c.arguments) for c in alone.tool_calls
    ]
    assert len(run.tool_calls) == len(alone.tool_calls) > 0
