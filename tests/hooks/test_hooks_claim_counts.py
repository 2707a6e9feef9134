"""The Claude Code stop hook checks claims (by default): a pass count the last test run never
printed."""

from __future__ import annotations

from pathlib import Path

from claude_session import Session, blocked, decision

DATA = Path(__file__).resolve().parents[1] / "data" / "claims"


def test_claimed_counts_disagreeing_with_the_last_run_block_the_stop(tmp_path: Path) -> None:
    session = Session(tmp_path)
    (session.workspace / "app.py").write_text("x = 1\n")
    session.prompt("Fix the failing test in app.py and run the suite.")
    session.tool("Edit", {"file_path": str(session.workspace / "app.py")}, "The file was edited")
    (session.workspace / "app.py").write_text("x = 2\n")
    output = "Exit code 1\n" + (DATA / "pytest-failed.txt").read_text()
    session.tool("Bash", {"command": "python -m pytest tests"}, output)
    session.say("Fixed. All 5 tests pass.")
    result = session.stop()
    assert blocked(result), result.stdout + result.stderr
    reason = decision(result)["reason"]
    assert "claimed 5/5 passed" in reason
    assert "the last test run (pytest) printed 2/4 passed, 1 failed, 1 error, 1 skipped" in reason


def test_without_strict_claims_the_hook_does_not_read_counts(tmp_path: Path) -> None:
    session = Session(tmp_path)
    (session.workspace / ".earnest.toml").write_text("[effects]\nstrict_claims = false\n")
    (session.workspace / "app.py").write_text("x = 1\n")
    session.prompt("Fix the failing test in app.py and run the suite.")
    session.tool("Edit", {"file_path": str(session.workspace / "app.py")}, "The file was edited")
    (session.workspace / "app.py").write_text("x = 2\n")
    session.tool(
        "Bash", {"command": "python -m pytest tests"}, (DATA / "pytest-ok.txt").read_text()
    )
    session.say("Fixed. All 86/86 tests pass.")
    assert decision(session.stop()) == {}
