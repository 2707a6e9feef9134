"""Pi session files (``pi-session``), on sessions the real Pi 0.73.1 wrote."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import ReadReport, detect_format, read_trajectories

PI = TRANSCRIPTS / "pi"
FIXED = PI / "false-done-then-fixed.jsonl"
FOREVER = PI / "done-forever-exhausted.jsonl"
QUESTION = PI / "question-after-read.jsonl"


def test_detected_as_pi() -> None:
    assert {detect_format(p) for p in (FIXED, FOREVER, QUESTION)} == {"pi-session"}


def test_re_prompted_run_then_edit() -> None:
    report = ReadReport()
    (t,) = read_trajectories(FIXED, report=report)
    assert t.format == "pi-session"
    assert t.id == "01a24eea-3e11-71b0-b5c9-c00742731800" == t.metadata["session_id"]
    assert t.metadata["session_version"] == 3
    # The reason the extension queued is a user message, read as a stop hook's feedback: the
    # run is still the one of the real prompt, the false "Done" included.
    assert t.user_request == "fix the bug in app.py"
    users = [(m.kind, m.text[:26]) for m in t.messages if m.role == "user"]
    assert users == [("prompt", "fix the bug in app.py"), ("noise", "completion-without-effect:")]
    assert [(c.name, c.outcome) for c in t.tool_calls] == [("edit", "success")]
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("app.py", "modify")]
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert t.termination.reason == "normal"
    assert t.metadata["assistant_turns"] == 3
    assert report.skipped_lines == 0 and not report.warnings


def test_question_keeps_the_read_output() -> None:
    (t,) = read_trajectories(QUESTION)
    (call,) = t.tool_calls
    assert call.name == "read" and call.outcome == "success"
    assert "return sum(xs) + 1" in call.output_excerpt
    assert not t.file_edits


def test_score_and_replay_read_the_sessions() -> None:
    outcomes = {}
    for path in (FIXED, FOREVER, QUESTION):
        done = run_earnest("trajectory", "score", str(path), "--format", "json")
        assert done.returncode == 0, done.stderr
        (scored,) = json.loads(done.stdout)["trajectories"]
        outcomes[path.name] = scored["outcome"]
    assert outcomes == {
        FIXED.name: "backed",
        FOREVER.name: "completion_without_effect",
        QUESTION.name: "backed",
    }
    replay = run_earnest("trajectory", "replay-gate", str(FIXED), "--format", "json")
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["summary"]["final_completion_without_effect"] == 0


def test_the_branch_ending_at_the_last_entry_is_read(tmp_path: Path) -> None:
    """A session branched with /tree: the abandoned branch's edit is not this run's."""
    lines = [json.loads(x) for x in FIXED.read_text(encoding="utf-8").splitlines()]
    prompt = next(e for e in lines if e.get("message", {}).get("role") == "user")
    answer = {
        "type": "message",
        "id": "feedbeef",
        "parentId": prompt["id"],
        "timestamp": prompt["timestamp"],
        "message": {"role": "assistant", "content": [{"type": "text", "text": "No bug."}]},
    }
    branched = tmp_path / "s.jsonl"
    branched.write_text("".join(json.dumps(e) + "\n" for e in [*lines, answer]), "utf-8")
    (t,) = read_trajectories(branched)
    assert list(t.tool_calls) == []
    assert t.final_message == "No bug."


def test_damaged_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    lines = FIXED.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "s.jsonl"
    bad = json.dumps({"id": "x1", "parentId": None, "message": "oops"})  # no type
    broken.write_text("\n".join([lines[0], "{not json", bad, *lines[1:]]) + "\n", "utf-8")
    report = ReadReport()
    (t,) = read_trajectories(broken, report=report)
    assert t.final_message == "Fixed: total() no longer adds 1."
    assert [c.name for c in t.tool_calls] == ["edit"]
    assert report.skipped_lines == 2


def test_the_run_read_from_its_prompt_is_the_whole_reads_run(tmp_path: Path) -> None:
    """The stop hook parses only the current run (from the last prompt on the last entry's
    branch, found backwards, with the header): the same request, calls and final message as
    a whole read, behind real earlier runs."""
    from earnest.trajectory.readers.pi_session import run_start

    for path in sorted((TRANSCRIPTS / "pi").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        long = tmp_path / path.name
        long.write_text("".join(lines[:1] + lines[1:] * 3), encoding="utf-8")
        start = run_start(long)
        assert start > 0, path.name
        (whole,) = read_trajectories(long, format="pi-session", run_only=True)
        (tail,) = read_trajectories(long, format="pi-session", run_only=True, start=start)
        assert tail.user_request == whole.user_request, path.name
        assert tail.final_message == whole.final_message, path.name
        assert [(c.name, c.outcome, c.arguments) for c in tail.tool_calls] == [
            (c.name, c.outcome, c.arguments) for c in whole.tool_calls
        ], path.name
        assert tail.id == whole.id, path.name
