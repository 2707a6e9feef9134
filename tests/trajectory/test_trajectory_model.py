"""The normalized model: tool-result shape for the effect gate, JSON round trip, validation."""

from __future__ import annotations

import json

import pytest

from earnest.trajectory.model import (
    SCHEMA,
    FileEdit,
    Message,
    Termination,
    ToolCall,
    Trajectory,
)


def _sample() -> Trajectory:
    return Trajectory(
        id="s1",
        source="run.jsonl",
        format="claude-code",
        messages=(
            Message("user", "Add a test", 0, kind="prompt"),
            Message("assistant", "Done.", 3, timestamp="2026-01-01T00:00:00Z"),
        ),
        tool_calls=(
            ToolCall("t1", "Write", {"file_path": "t.py"}, "success", "ok", 0),
            ToolCall("t2", "Bash", {"command": "pytest"}, "error", "Exit code 1", 1, exit_code=1),
            ToolCall("t3", "Bash", {"command": "ls"}, "unknown", "", 2, is_sidechain=True),
        ),
        file_edits=(FileEdit("t.py", "create", "t1"),),
        final_message="Done.",
        termination=Termination("normal"),
        user_request="Add a test",
        metadata={"session_id": "s1", "models": ["claude"]},
    )


def test_as_tool_result_follows_the_gate_contract() -> None:
    ok, failed, unknown = (c.as_tool_result() for c in _sample().tool_calls)
    assert ok["tool_name"] == "Write" and ok["args"] == {"file_path": "t.py"}
    assert ok["is_error"] is False and ok["success"] is True and "error" not in ok
    assert failed["is_error"] is True and failed["exit_code"] == 1
    assert failed["error"] == "Exit code 1"
    # no result recorded: no evidence it happened, so it must not be credited
    assert unknown["is_error"] is False and unknown["success"] is False
    assert unknown["error"] == "no tool result recorded"
    assert unknown["is_sidechain"] is True and unknown["turn_index"] == 2


def test_tool_results_can_leave_out_sidechains() -> None:
    t = _sample()
    assert len(t.tool_results()) == 3
    assert [r["id"] for r in t.tool_results(include_sidechains=False)] == ["t1", "t2"]


def test_claimed_completion_needs_text_and_a_normal_end() -> None:
    t = _sample()
    assert t.claimed_completion
    limited = Trajectory(
        id="x", source="x", format="f", final_message="Done.",
        termination=Termination("usage_limit", "You've hit your limit"),
    )  # fmt: skip
    assert not limited.claimed_completion
    silent = Trajectory(id="x", source="x", format="f", termination=Termination("normal"))
    assert not silent.claimed_completion


def test_dict_round_trip_through_json_is_exact() -> None:
    t = _sample()
    data = json.loads(json.dumps(t.to_dict()))
    assert data["schema"] == SCHEMA
    assert "timestamp" not in data["messages"][0]  # None fields are left out
    assert Trajectory.from_dict(data) == t


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"schema": "other/1"}, "not an earnest.trajectory/1 record"),
        ({"termination": {"reason": "exploded"}}, "unknown termination reason"),
        ({"tool_calls": [{"id": "a", "name": "x", "outcome": "maybe"}]}, "unknown tool outcome"),
        ({"file_edits": [{"path": "a", "kind": "rename", "tool_call_id": "a"}]}, "edit kind"),
        ({"messages": "nope"}, "messages must be a list"),
        ({"id": 3}, "'id' must be a string"),
    ],
)
def test_from_dict_rejects_invalid_records(patch: dict[str, object], message: str) -> None:
    data = _sample().to_dict()
    data.update(patch)
    with pytest.raises(ValueError, match=message):
        Trajectory.from_dict(data)
