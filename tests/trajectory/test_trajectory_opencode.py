"""opencode session databases (format ``opencode``), on databases the real opencode 1.18.33 wrote."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import ReadReport, detect_format, read_trajectories

OPENCODE = TRANSCRIPTS / "opencode"
REPROMPTED = OPENCODE / "scenario-a-reprompted-then-edit.db"
FOREVER = OPENCODE / "scenario-c-done-forever.db"
REASON = "completion-without-effect: expected a workspace_delta"


def test_detected_as_opencode() -> None:
    assert detect_format(REPROMPTED) == "opencode"
    assert detect_format(FOREVER) == "opencode"


def test_another_sqlite_file_is_not_a_transcript(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("create table session (id text)")
    con.commit()
    con.close()
    assert detect_format(other) is None


def test_reprompted_run_then_edit() -> None:
    report = ReadReport()
    (t,) = read_trajectories(REPROMPTED, report=report)
    assert report.warnings == []
    assert t.format == "opencode"
    assert t.id == "ses_db1074130ffeolbmxERvi50JPp" == t.metadata["session_id"]
    assert t.metadata["cli_version"] == "1.18.33"
    assert t.user_request == '"fix the bug in app.py"'
    assert [(c.name, c.outcome) for c in t.tool_calls] == [("read", "success"), ("edit", "success")]
    assert "return sum(xs) + 1" in t.tool_calls[0].output_excerpt
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("app.py", "modify")]
    assert t.final_message == "Fixed: total() no longer adds 1."
    # earnest's reason is a user message of its own, read as the run going on (not a prompt).
    users = [m for m in t.messages if m.role == "user"]
    assert [m.kind for m in users] == ["prompt", "noise"]
    assert users[1].text.startswith(REASON)
    assert t.metadata["assistant_turns"] == 4
    assert t.metadata["last_message_tool_calls"] == 0


def test_run_only_keeps_the_prompt_across_the_reprompt() -> None:
    (t,) = read_trajectories(REPROMPTED, run_only=True)
    assert t.user_request == '"fix the bug in app.py"'
    assert [c.name for c in t.tool_calls] == ["read", "edit"]


def test_reading_never_writes_the_database(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    copy.write_bytes(REPROMPTED.read_bytes())
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    list(read_trajectories(copy))
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]


def test_a_damaged_row_is_skipped_with_a_warning(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    copy.write_bytes(REPROMPTED.read_bytes())
    con = sqlite3.connect(copy)
    con.execute("update part set data = '{not json' where data like '%\"tool\":\"read\"%'")
    con.commit()
    con.close()
    report = ReadReport()
    (t,) = read_trajectories(copy, report=report)
    assert [c.name for c in t.tool_calls] == ["edit"]
    assert report.skipped_lines == 1
    assert "data is not a JSON object" in report.warnings[0].message
    assert report.warnings[0].message.startswith("part prt_")


def test_scores_as_the_real_runs_ended() -> None:
    done = run_earnest("trajectory", "score", str(REPROMPTED), str(FOREVER), "--format", "json")
    assert done.returncode == 0, done.stderr
    outcomes = [t["outcome"] for t in json.loads(done.stdout)["trajectories"]]
    assert outcomes == ["backed", "completion_without_effect"]
