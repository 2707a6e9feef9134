"""SWE-agent ``.traj`` (function-calling and legacy) and mini-swe-agent ``.traj.json``."""

from __future__ import annotations

from collections import Counter

from conftest import TRANSCRIPTS
from earnest.trajectory import read_trajectories

SWE = TRANSCRIPTS / "swe-agent"
MINI = TRANSCRIPTS / "mini-swe-agent"


def test_function_calling_tool_call_ids_list_is_matched() -> None:
    (t,) = read_trajectories(SWE / "sweagent-replay-function_calling-marshmallow-1867.traj")
    assert t.format == "swe-agent"
    names = Counter(c.name for c in t.tool_calls)
    assert (
        names
        == Counter({"bash": 4, "edit": 3, "create": 1, "find_file": 1, "open": 1, "submit": 1})
        or names
    )
    assert all(c.outcome != "unknown" for c in t.tool_calls if c.name != "submit")
    assert t.termination.reason == "normal" and t.metadata["exit_status"] == "submitted"
    assert t.user_request.startswith("<uploaded_files>") or "marshmallow" in t.user_request
    paths = {e.path for e in t.file_edits}
    assert any(p.endswith("reproduce.py") for p in paths)
    assert any(p.endswith("fields.py") for p in paths)  # from "(Open file: ...)" after edit


def test_demo_without_info() -> None:
    (t,) = read_trajectories(SWE / "sweagent-demo-function_calling_simple.traj")
    assert len(t.tool_calls) == 5 and all(c.outcome == "success" for c in t.tool_calls)
    assert "exit_status" not in t.metadata
    assert t.final_message


def test_legacy_commands_come_from_trajectory_steps() -> None:
    (t,) = read_trajectories(SWE / "sweagent-gpt4-pydicom-1458-legacy.traj")
    names = Counter(c.name for c in t.tool_calls)
    assert names["edit"] == 5 and names["bash"] == 3 and names["submit"] == 1
    assert t.tool_calls[0].arguments["command"].startswith("create reproduce_bug.py")
    assert t.termination.reason == "normal" and t.metadata["has_submission"]
    assert t.user_request.startswith("We're currently solving the following issue")
    kinds = [m.kind for m in t.messages if m.role == "user"]
    assert kinds.count("prompt") == 1 and "feedback" in kinds


def test_mini_swe_agent_submissions() -> None:
    for name in ("13660", "14411", "14752"):
        (t,) = read_trajectories(MINI / f"miniswe-deepseek-django__django-{name}.traj.json")
        assert t.format == "mini-swe-agent" and t.id == f"django__django-{name}"
        assert t.termination.reason == "normal" and t.metadata["exit_status"] == "Submitted"
        assert t.metadata["exit_message"].startswith("diff --git")
        assert t.user_request.startswith("<pr_description>")
        assert any(c.exit_code == 0 and c.outcome == "success" for c in t.tool_calls)
        assert all(c.name == "bash" for c in t.tool_calls)
        assert t.file_edits == ()  # bash only: classification is earnest.effects' job
    (t,) = read_trajectories(MINI / "miniswe-deepseek-django__django-13660.traj.json")
    errors = [c for c in t.tool_calls if c.outcome == "error"]
    assert errors and all(c.exit_code not in (0, None) for c in errors)
