"""The newest Claude Code (2.1.33x): background subagents, new record types, wrapped feedback.

The transcripts are real: Claude Code 2.1.332 wrote them in the real-CLI tier
(tests/data/transcripts/claude-code/SOURCE.md). ``cc2.1.332-background-subagent-after-block``
is a session where the stop hook blocked "Done", the agent then handed the fix to a subagent
that ran in the background, stopped while it ran, and was restarted by its
``<task-notification>``; tests/data/hooks/claude-2.1.332-background-subagent-stop-inputs.json holds the four hook inputs Claude Code sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_session import CC, Session, blocked, decision

from earnest.hooks.claude_code import PENDING, running_subagents
from earnest.trajectory import ReadReport, read_trajectories
from earnest.trajectory.readers.claude_code import read_claude_code_from

HOOK_DATA = Path(__file__).resolve().parents[1] / "data" / "hooks"
NAME = "cc2.1.332-background-subagent-after-block"
AGENT = "adf6b67a4716d11f0"
RECORDED = "/tmp/pytest-of-dev/pytest-0/test_g_background_subagent_fin0/project"
NEW_TYPES = (
    "attachment",
    "last-prompt",
    "atis-latch",
    "api-request-shape",
    "api-request-blob",
    "api-request",
    "tools-used",
    "cost-state",
)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _moved(text: str, workspace: Path) -> str:
    return text.replace(RECORDED, str(workspace))


def _stop_inputs() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(
        (HOOK_DATA / "claude-2.1.332-background-subagent-stop-inputs.json").read_text()
    )
    return data


def _edit_line(lines: list[str]) -> int:
    """The index of the subagent's Edit call (its result follows)."""
    return next(
        i for i, line in enumerate(lines) if '"type":"tool_use"' in line and '"Edit"' in line
    )


@pytest.mark.parametrize("name", [f"{NAME}.jsonl", "cc2.1.332-block-then-edit.jsonl"])
def test_new_record_types_are_read_without_warnings(name: str) -> None:
    path = CC / name
    kinds = {json.loads(line).get("type") for line in _lines(path)}
    assert set(NEW_TYPES) <= kinds  # the real file has every one of them
    report = ReadReport()
    (trajectory,) = list(read_trajectories(path, report=report))
    assert not [w for w in report.warnings if "unknown record type" in str(w)], report.warnings
    assert trajectory.metadata["cost_state_usd"] > 0
    assert trajectory.user_request == "fix the bug in app.py"


def test_the_background_subagents_edit_is_part_of_the_run() -> None:
    (trajectory,) = list(read_trajectories(CC / f"{NAME}.jsonl", report=ReadReport()))
    assert trajectory.metadata["subagent_files"] == 1
    names = [c.name for c in trajectory.tool_calls]
    assert "Edit" in names and "Read" in names, names


def test_a_subagent_file_is_read_again_when_it_has_grown(tmp_path: Path) -> None:
    """Read at the Agent call while the subagent had not edited yet, then after it did."""
    main = tmp_path / "s.jsonl"
    main.write_text((CC / f"{NAME}.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    sub = folder / f"agent-{AGENT}.jsonl"
    lines = _lines(CC / NAME / "subagents" / f"agent-{AGENT}.jsonl")
    cut = _edit_line(lines)
    sub.write_text("".join(lines[:cut]), encoding="utf-8")
    session, offset = read_claude_code_from(main, final=False, run_only=True)
    before = [c.name for c in session.trajectory().tool_calls]
    assert "Edit" not in before
    with sub.open("a", encoding="utf-8") as fh:
        fh.write("".join(lines[cut:]))
    session, _ = read_claude_code_from(main, offset, session, final=False, run_only=True)
    after = [c.name for c in session.trajectory().tool_calls]
    assert after.count("Edit") == 1 and after.count("Read") == before.count("Read"), after


def test_a_half_written_subagent_line_waits_for_the_next_read(tmp_path: Path) -> None:
    main = tmp_path / "s.jsonl"
    main.write_text((CC / f"{NAME}.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "s" / "subagents").mkdir(parents=True)
    sub = tmp_path / "s" / "subagents" / f"agent-{AGENT}.jsonl"
    lines = _lines(CC / NAME / "subagents" / f"agent-{AGENT}.jsonl")
    cut = _edit_line(lines)
    half = len(lines[cut]) // 2
    sub.write_text("".join(lines[:cut]) + lines[cut][:half], encoding="utf-8")
    report = ReadReport()
    session, offset = read_claude_code_from(main, final=False, run_only=True, report=report)
    with sub.open("a", encoding="utf-8") as fh:
        fh.write(lines[cut][half:] + "".join(lines[cut + 1 :]))
    session, _ = read_claude_code_from(main, offset, session, final=False, run_only=True)
    names = [c.name for c in session.trajectory().tool_calls]
    assert names.count("Edit") == 1, names
    assert not report.warnings, report.warnings


def test_running_subagents_reads_the_real_stop_inputs() -> None:
    found = [running_subagents(payload) for payload in _stop_inputs()]
    # block, pending (the subagent runs), the subagent's own stop, the stop after it ended
    assert found == [[], ["general-purpose"], [], []]


def _hook_session(tmp_path: Path) -> tuple[Session, list[str], list[str], Path]:
    session = Session(tmp_path)
    (session.workspace / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n")
    main = [_moved(line, session.workspace) for line in _lines(CC / f"{NAME}.jsonl")]
    sub_lines = _lines(CC / NAME / "subagents" / f"agent-{AGENT}.jsonl")
    sub = [_moved(line, session.workspace) for line in sub_lines]
    folder = session.transcript.parent / session.transcript.stem / "subagents"
    folder.mkdir(parents=True)
    return session, main, sub, folder / f"agent-{AGENT}.jsonl"


def _upto(lines: list[str], count: int) -> int:
    """The index after the ``count``-th stop_hook_summary record (where that stop was)."""
    seen = 0
    for i, line in enumerate(lines):
        if '"subtype":"stop_hook_summary"' in line:
            seen += 1
            if seen == count:
                return i + 1
    raise AssertionError(f"no stop number {count}")


def test_the_stop_while_a_subagent_runs_is_not_judged_and_its_work_counts_after(
    tmp_path: Path,
) -> None:
    """Issue 23, as Claude Code 2.1.332 did it: block, a stop while the subagent runs (not
    judged, no budget spent), then the stop after its <task-notification> is allowed: the
    subagent's edit, read from its file once it was there, backs "fixed"."""
    session, main, sub, sub_path = _hook_session(tmp_path)
    inputs = _stop_inputs()
    first, running, _subagent_stop, last = inputs
    extra = {"last_assistant_message": first["last_assistant_message"]}

    session.transcript.write_text("".join(main[: _upto(main, 1) - 3]), encoding="utf-8")
    assert blocked(session.stop(**extra))

    session.transcript.write_text("".join(main[: _upto(main, 2)]), encoding="utf-8")
    sub_path.write_text("".join(sub[: _edit_line(sub)]), encoding="utf-8")
    result = session.stop(
        active=True,
        last_assistant_message=running["last_assistant_message"],
        background_tasks=running["background_tasks"],
    )
    note = decision(result)
    assert note.get("systemMessage", "").startswith(f"earnest: {PENDING}:"), result.stdout
    assert "decision" not in note
    assert session.state_file()["blocks"] == 1  # nothing spent, nothing reset

    session.transcript.write_text("".join(main), encoding="utf-8")
    sub_path.write_text("".join(sub), encoding="utf-8")
    (session.workspace / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    result = session.stop(
        last_assistant_message=last["last_assistant_message"],
        background_tasks=last["background_tasks"],
    )
    assert decision(result) == {}, result.stdout
