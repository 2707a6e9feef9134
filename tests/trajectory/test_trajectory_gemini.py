"""Gemini CLI: stream-json logs (several sessions per file) and native chat sessions."""

from __future__ import annotations

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
