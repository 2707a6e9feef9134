"""The readers hand each shell call's output to the effects' shell reading, so the runners'
own summaries decide the outcome of real transcripts' test runs (Claude Code, Codex, Gemini)."""

from __future__ import annotations

from pathlib import Path

from earnest.effects import EffectLedger, observe_tool_result
from earnest.trajectory.readers import detect_format, read_trajectories

DATA = Path(__file__).resolve().parents[1] / "data"


def ledger_of(path: Path) -> EffectLedger:
    fmt = detect_format(path)
    assert fmt is not None, path
    ledger = EffectLedger()
    for trajectory in read_trajectories(path, format=fmt):
        ledger.record([call.as_tool_result() for call in trajectory.tool_calls])
    return ledger


def test_claude_code_the_real_31_passed_session_ran_a_failing_suite() -> None:
    # The real session that claimed "31 passed" over a run that printed 31/35 passed, 4 failed.
    path = DATA / "transcripts/claude-code/mclaude-abc757d1-3da3--review-proposal-image-edits.jsonl"
    runs = [r for r in ledger_of(path).check_runs if r.counts is not None]
    failing = [r for r in runs if r.outcome == "failure"]
    assert failing, runs
    counts = failing[-1].counts
    assert counts is not None and (counts.passed, counts.failed) == (31, 4)
    assert failing[-1].summary == "pytest: 31/35 passed, 4 failed"


def test_claude_code_a_green_pytest_run_is_a_known_success() -> None:
    path = DATA / "transcripts/claude-code/drmaciver-coverage-test-fix.jsonl"
    ledger = ledger_of(path)
    green = [r for r in ledger.check_runs if r.summary.startswith("pytest") and r.succeeded]
    assert green and green[0].counts is not None and green[0].counts.failed == 0
    assert any(e.command == green[0].command for e in ledger.checks)


def test_claude_stream_json_vitest_through_npm_test() -> None:
    path = DATA / "transcripts/claude-stream-json/perfectsnake-69bfacd-claude-stream.jsonl"
    runs = ledger_of(path).check_runs
    assert any(r.summary == "vitest: 26/26 passed" and r.succeeded for r in runs), runs


def test_codex_the_script_of_bash_lc_is_read_and_its_summary_decides() -> None:
    path = DATA / "act/codex-0.171-exec-honest.jsonl"
    ledger = ledger_of(path)
    run = ledger.last_check_run()
    assert run is not None and run.command == "python3 -m unittest -q"
    assert run.line == "/bin/bash -lc 'python3 -m unittest -q'"
    assert run.outcome == "success" and run.summary == "unittest: 2/2 passed"


def test_gemini_session_output_and_exit_code_reach_the_outcomes() -> None:
    # Gemini CLI's session file records the program's output and its "Exit Code: 128" trailer.
    path = DATA / "act/gemini-0.61-session-merge.jsonl"
    fmt = detect_format(path)
    assert fmt is not None
    (trajectory,) = list(read_trajectories(path, format=fmt))
    (call,) = [c for c in trajectory.tool_calls if "git merge" in str(c.arguments)]
    seen = observe_tool_result(call.as_tool_result())
    assert "not a git repository" in call.output_excerpt
    assert [(o.head, o.outcome) for o in seen.outcomes] == [("git", "failure")]
