"""Engram, Antigravity and Anthropic managed-agent logs (real, from tests/data/transcripts)."""

from __future__ import annotations

from collections import Counter

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_trajectories


def test_engram_transcript_cut_at_a_line_boundary() -> None:
    report = ReadReport()
    (t,) = read_trajectories(
        TRANSCRIPTS / "engram/sentinel-42a88904-transcript.jsonl", report=report
    )
    assert t.format == "engram" and len(t.tool_calls) == 60  # the curated copy: first 149 lines
    clone = t.tool_calls[0]
    # the transcript says the clone failed (operations.json wrongly says it did not)
    assert (clone.outcome, clone.exit_code) == ("error", 128)
    assert t.user_request and report.skipped_lines == 0


def test_antigravity_writes_without_execution() -> None:
    (t,) = read_trajectories(TRANSCRIPTS / "antigravity/applysense-transcript.jsonl")
    names = Counter(c.name for c in t.tool_calls)
    assert names["write_to_file"] == 77 and len(t.file_edits) == 77
    assert not any("command" in c.name for c in t.tool_calls)
    assert t.final_message.startswith("I have completed building the entire")
    assert t.file_edits[0].path.startswith("C:\\") or t.file_edits[0].path.startswith("C:/")


def test_managed_agent_session() -> None:
    (t,) = read_trajectories(TRANSCRIPTS / "claude-managed-agents/openhai-context-location.jsonl")
    names = Counter(c.name for c in t.tool_calls)
    assert names["bash"] == 57 and names["write"] == 14 and names["edit"] == 9
    assert all(c.outcome != "unknown" for c in t.tool_calls)
    assert t.user_request.startswith("Audit the reproducibility")
    # idle with end_turn before the interrupt: the agent had finished
    assert t.termination.reason == "normal"
    assert t.metadata["outcome_evaluation"].startswith("satisfied")
