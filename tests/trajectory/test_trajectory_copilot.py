"""GitHub Copilot CLI session logs (``copilot-cli-events``), on logs the real Copilot CLI
1.0.102 wrote in the real-CLI tier."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import ReadReport, detect_format, read_trajectories

COPILOT = TRANSCRIPTS / "copilot-cli"
BLOCKED_THEN_EDIT = COPILOT / "scenario-a-blocked-then-edit.jsonl"
PIPED_FAILING = COPILOT / "scenario-j-piped-failing-tests.jsonl"
SESSION = "36f7a757-87d6-4a9e-ab7f-7ebc2a0e2b80"


def test_detected_as_copilot() -> None:
    assert detect_format(BLOCKED_THEN_EDIT) == "copilot-cli-events"
    assert detect_format(PIPED_FAILING) == "copilot-cli-events"


def test_blocked_run_then_edit() -> None:
    report = ReadReport()
    (t,) = read_trajectories(BLOCKED_THEN_EDIT, report=report)
    assert t.format == "copilot-cli-events"
    assert t.id == SESSION == t.metadata["session_id"]
    assert t.metadata["cli_version"] == "1.0.102"
    assert t.user_request == "fix the bug in app.py"
    assert [(c.name, c.outcome) for c in t.tool_calls] == [("view", "success"), ("edit", "success")]
    assert "return sum(xs) + 1" in t.tool_calls[0].output_excerpt
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("app.py", "modify")]
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert t.termination.reason == "normal"
    # The block reason came back as a user.message: read as the hook's, not a new prompt.
    users = [(m.kind, m.text[:25]) for m in t.messages if m.role == "user"]
    assert users == [("prompt", "fix the bug in app.py"), ("noise", "completion-without-effect")]
    assert t.metadata["assistant_turns"] == 4  # "Done", view, edit, "Fixed"
    # Copilot's bookkeeping (usage, turns, hooks, the system prompt) is passed over silently.
    assert report.skipped_lines == 0 and not report.warnings


def test_any_hooks_block_reason_continues_the_run(tmp_path: Path) -> None:
    # A reason that is not earnest's: only the hook.end before it tells it from a prompt.
    text = BLOCKED_THEN_EDIT.read_text(encoding="utf-8")
    (ours,) = {json.loads(x)["data"]["output"]["reason"] for x in text.splitlines()
               if '"hook.end"' in x and '"block"' in x}  # fmt: skip
    moved = tmp_path / "events.jsonl"
    moved.write_text(
        text.replace(json.dumps(ours, ensure_ascii=False)[1:-1], "Run the tests first."), "utf-8"
    )
    (t,) = read_trajectories(moved, run_only=True)
    assert t.user_request == "fix the bug in app.py"
    assert [m.text for m in t.messages if m.kind == "prompt"] == ["fix the bug in app.py"]
    assert [m.text for m in t.messages if m.kind == "noise"] == ["Run the tests first."]
    assert "Done — I fixed the bug in app.py." in [m.text for m in t.messages]


def test_shell_calls_keep_their_output_and_exit_code() -> None:
    (t,) = read_trajectories(PIPED_FAILING)
    shells = [c for c in t.tool_calls if c.name == "bash"]
    assert len(shells) == 4 and all(c.outcome == "success" for c in shells)
    assert all(c.exit_code == 0 for c in shells)
    assert "unittest" in shells[1].arguments["command"]
    assert "FAILED" in shells[1].output_excerpt  # the red run, exit status 0 through the pipe
    assert "<shellId:" not in shells[1].output_excerpt  # Copilot's trailer is not output


def test_failed_edit_and_nonzero_exit_are_errors(tmp_path: Path) -> None:
    lines = BLOCKED_THEN_EDIT.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        event = json.loads(line)
        if event["type"] == "tool.execution_complete" and event["data"]["toolCallId"].endswith(
            "0004"
        ):  # the edit: as Copilot records an old_str that matched nothing
            data = {k: v for k, v in event["data"].items() if k not in ("result", "fileEdits")}
            event["data"] = {**data, "success": False,
                             "error": {"message": "No match found", "code": "failure"}}  # fmt: skip
        out.append(json.dumps(event))
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(out) + "\n", encoding="utf-8")
    (t,) = read_trajectories(log)
    edit = t.tool_calls[1]
    assert (edit.outcome, edit.error) == ("error", "No match found")
    assert t.file_edits == ()


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
    broken = tmp_path / "events.jsonl"
    broken.write_text(
        "\n".join([lines[0], "{not json", json.dumps({"type": "user.message", "data": "oops"}),
                   *lines[1:]]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    report = ReadReport()
    (t,) = read_trajectories(broken, report=report)
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert report.skipped_lines == 2


def test_the_run_read_from_its_prompt_is_the_whole_reads_run(tmp_path: Path) -> None:
    """The stop hook parses only the current run (from the last prompt, found backwards; a
    block reason coming back as a user.message is no prompt): the same request, calls and
    final message as a whole read, behind real earlier runs."""
    from earnest.trajectory.readers.copilot_events import run_start

    for path in sorted((TRANSCRIPTS / "copilot-cli").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        long = tmp_path / path.name
        long.write_text("".join(lines[:1] + lines[1:] * 3), encoding="utf-8")
        start = run_start(long)
        assert start > 0, path.name
        (whole,) = read_trajectories(long, format="copilot-cli-events", run_only=True)
        (tail,) = read_trajectories(long, format="copilot-cli-events", run_only=True, start=start)
        assert tail.user_request == whole.user_request, path.name
        assert tail.final_message == whole.final_message, path.name
        assert [(c.name, c.outcome, c.arguments) for c in tail.tool_calls] == [
            (c.name, c.outcome, c.arguments) for c in whole.tool_calls
        ], path.name
        assert tail.id == whole.id and tail.metadata["session_id"] == whole.metadata["session_id"]
        assert (
            tail.metadata["last_hook_input_timestamp"]
            == whole.metadata["last_hook_input_timestamp"]
        )
