"""tau-bench result files, including the truncated historical file."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_trajectories


def test_truncated_array_is_salvaged() -> None:
    report = ReadReport()
    found = list(
        read_trajectories(TRANSCRIPTS / "tau-bench/taubench-gpt-4o-airline.json", report=report)
    )
    assert len(found) == 13  # the curated copy keeps the first 13 entries and a cut 14th
    assert report.skipped_lines == 1 and "cut short after 13" in report.warnings[0].message
    first = found[0]
    assert first.id == "taubench-gpt-4o-airline#task-0-trial-0"
    assert first.metadata["reward"] == 0.0 and first.termination.is_normal
    assert first.metadata["closing_user_message"] == "Thank you so much for your help!"
    assert "###STOP###" not in (first.user_request or "")
    assert any(c.name == "book_reservation" and c.outcome == "success" for c in first.tool_calls)
    errors = [c for t in found for c in t.tool_calls if c.outcome == "error"]
    assert errors and all(c.output_excerpt.startswith("Error") for c in errors)


def test_transfer_to_human_is_a_normal_end(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    traj = [
        {"role": "user", "content": "cancel my flight"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
         "function": {"name": "transfer_to_human_agents", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "name": "transfer_to_human_agents",
         "content": "Transfer successful"},
    ]  # fmt: skip
    path.write_text(
        json.dumps([{"task_id": 7, "reward": 1.0, "info": {}, "traj": traj, "trial": 1}])
    )
    (t,) = read_trajectories(path)
    assert t.termination.detail == "transferred to a human agent"
