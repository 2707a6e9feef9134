"""Qwen Code chat logs (``qwen-code-chat``), on logs the real Qwen Code 0.15.10 wrote."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import ReadReport, detect_format, read_trajectories

QWEN = TRANSCRIPTS / "qwen-code"
BLOCKED_THEN_EDIT = QWEN / "scenario-a-blocked-then-edit.jsonl"
PIPED_FAILING = QWEN / "scenario-j-piped-failing-tests.jsonl"


def test_detected_as_qwen_not_as_claude_code() -> None:
    # The records carry sessionId and parentUuid, as Claude Code's do: before the Qwen reader
    # these logs were read as Claude Code transcripts and scored abnormal.
    assert detect_format(BLOCKED_THEN_EDIT) == "qwen-code-chat"
    assert detect_format(PIPED_FAILING) == "qwen-code-chat"


def test_blocked_run_then_edit() -> None:
    report = ReadReport()
    (t,) = read_trajectories(BLOCKED_THEN_EDIT, report=report)
    assert t.format == "qwen-code-chat"
    assert t.id == "363b922b-6419-4879-9da0-f1be1051c7f0" == t.metadata["session_id"]
    assert t.metadata["cli_version"] == "0.15.10"
    assert t.user_request == "fix the bug in app.py"
    assert [(c.name, c.outcome) for c in t.tool_calls] == [
        ("read_file", "success"),
        ("edit", "success"),
    ]
    assert "return sum(xs) + 1" in t.tool_calls[0].output_excerpt
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("app.py", "modify")]
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert t.termination.reason == "normal"
    # Qwen does not log the stop hook's block: one prompt, the first "Done" still there.
    assert [m.text for m in t.messages if m.role == "user"] == ["fix the bug in app.py"]
    assert t.metadata["assistant_turns"] == 4
    assert report.skipped_lines == 0 and not report.warnings


def test_shell_calls_keep_their_output() -> None:
    (t,) = read_trajectories(PIPED_FAILING)
    shells = [c for c in t.tool_calls if c.name == "run_shell_command"]
    assert len(shells) == 4 and all(c.outcome == "success" for c in shells)
    assert "unittest" in shells[1].arguments["command"]
    assert "FAILED" in shells[1].output_excerpt  # the red run, exit status 0 through the pipe


def test_score_and_replay_read_the_log() -> None:
    done = run_earnest("trajectory", "score", str(BLOCKED_THEN_EDIT), "--format", "json")
    assert done.returncode == 0, done.stderr
    (scored,) = json.loads(done.stdout)["trajectories"]
    assert scored["outcome"] == "backed"
    replay = run_earnest("trajectory", "replay-gate", str(BLOCKED_THEN_EDIT), "--format", "json")
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["summary"]["final_completion_without_effect"] == 0


def test_damaged_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    lines = BLOCKED_THEN_EDIT.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "s.jsonl"
    broken.write_text(
        "\n".join([lines[0], "{not json", json.dumps({"type": "assistant", "sessionId": "x",
                   "message": {"role": "model", "parts": "oops"}}), *lines[1:]]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    report = ReadReport()
    (t,) = read_trajectories(broken, report=report)
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert report.skipped_lines == 2


def test_the_newest_qwen_log_reads_the_same() -> None:
    """Qwen Code 0.24.4 (node 22) wrote this one: new fields and system subtypes, same run."""
    path = QWEN / "qwen0.24.4-scenario-a-blocked-then-edit.jsonl"
    assert detect_format(path) == "qwen-code-chat"
    report = ReadReport()
    (t,) = read_trajectories(path, report=report)
    assert t.metadata["cli_version"] == "0.24.4"
    assert t.user_request == "fix the bug in app.py"
    assert [(c.name, c.outcome) for c in t.tool_calls] == [
        ("read_file", "success"),
        ("edit", "success"),
    ]
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("app.py", "modify")]
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert report.skipped_lines == 0 and not report.warnings


SUBAGENT = QWEN / "scenario-g-subagent-fix.jsonl"
BACKGROUND = QWEN / "qwen0.24.4-scenario-g-background-subagent.jsonl"


def test_a_subagents_calls_are_read_from_its_telemetry_records() -> None:
    # Qwen writes no file for a subagent (0.15.10): its read_file and edit are ui_telemetry
    # records of the main log, between the agent call and its result. Before, the run had the
    # agent call alone, and the hook blocked the fix the subagent had made.
    for path in (SUBAGENT, BACKGROUND):
        report = ReadReport()
        (t,) = read_trajectories(path, report=report)
        calls = [(c.name, c.outcome, c.is_sidechain) for c in t.tool_calls]
        assert calls[0] == ("agent", "success", False), (path.name, calls)
        assert ("read_file", "success", True) in calls and ("edit", "success", True) in calls
        assert len(calls) == 3, calls  # the main agent's own telemetry is not a second call
        edit = next(c for c in t.tool_calls if c.name == "edit")
        assert edit.arguments["file_path"].endswith("/project/app.py")
        assert not report.skipped_lines, report


def test_a_subagents_fix_scores_backed() -> None:
    for path in (SUBAGENT, BACKGROUND):
        done = run_earnest("trajectory", "score", str(path), "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["trajectories"][-1]["outcome"] == "backed", path.name


RED_TESTS = QWEN / "scenario-g-subagent-red-tests.jsonl"
RED_TESTS_024 = QWEN / "qwen0.24.4-scenario-g-subagent-red-tests.jsonl"


def test_a_subagents_shell_call_told_a_success_by_0_15_is_of_unknown_outcome() -> None:
    """Qwen 0.15.10 calls a subagent's red test run (exit status 1) a success, with no
    output: read as a call of unknown outcome, it backs no check, and "all tests pass" is not
    backed. 0.24.4 tells the failure, with the run's output: read as failed."""
    (old,) = read_trajectories(RED_TESTS)
    (shell,) = [c for c in old.tool_calls if c.name == "run_shell_command"]
    assert shell.is_sidechain and shell.outcome == "unknown" and not shell.output_excerpt
    assert "reports every one a success (Qwen Code 0.15.10)" in (shell.error or "")
    assert shell.as_tool_result()["error"] == shell.error
    (new,) = read_trajectories(RED_TESTS_024)
    (shell,) = [c for c in new.tool_calls if c.name == "run_shell_command"]
    assert shell.outcome == "error" and "FAILED (failures=2)" in shell.output_excerpt
    for path in (RED_TESTS, RED_TESTS_024):
        done = run_earnest("trajectory", "score", str(path), "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["trajectories"][-1]["outcome"] != "backed", path.name


def test_only_releases_known_to_tell_a_failed_shell_call_are_believed() -> None:
    from earnest.trajectory.readers.qwen_chat import _reports_shell_failures

    said = {v: _reports_shell_failures({"version": v}) for v in
            ("0.15.10", "0.23.9", "0.24.0", "0.24.4", "1.0.0", "", "x.y", "0")}  # fmt: skip
    assert said == {"0.15.10": False, "0.23.9": False, "0.24.0": True, "0.24.4": True,
                    "1.0.0": True, "": False, "x.y": False, "0": False}  # fmt: skip


def test_the_run_read_from_its_prompt_is_the_whole_reads_run(tmp_path: Path) -> None:
    """The stop hook parses only the current run (from the last prompt, found backwards):
    the same request, calls and final message as a whole read, behind real earlier runs."""
    from earnest.trajectory.readers.qwen_chat import run_start

    for path in sorted(QWEN.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        long = tmp_path / path.name
        long.write_text("".join(lines * 3), encoding="utf-8")  # earlier runs before it
        start = run_start(long)
        assert start > 0, path.name
        (whole,) = read_trajectories(long, format="qwen-code-chat", run_only=True)
        (tail,) = read_trajectories(long, format="qwen-code-chat", run_only=True, start=start)
        assert tail.user_request == whole.user_request, path.name
        assert tail.final_message == whole.final_message, path.name
        assert [(c.name, c.outcome, c.arguments) for c in tail.tool_calls] == [
            (c.name, c.outcome, c.arguments) for c in whole.tool_calls
        ], path.name
        assert tail.metadata["run_offset"] == start
    assert run_start(BLOCKED_THEN_EDIT) == 0  # its only prompt is its first line
