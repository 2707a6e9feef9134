"""Claims checked against the tools' own output: real test-runner summaries (tests/data/claims)."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult
from earnest.effects.test_counts import TestCounts, claimed_counts, disagreement, parse_summary

DATA = Path(__file__).resolve().parents[1] / "data" / "claims"

# file -> (runner, passed, failed, skipped, errors): what each real run printed.
EXPECTED = {
    "pytest-ok.txt": ("pytest", 2, 0, 0, 0),
    "pytest-failed.txt": ("pytest", 2, 1, 1, 1),
    "pytest-q-failed.txt": ("pytest", 2, 1, 1, 1),
    "pytest-q-money-failed.txt": ("pytest", 5, 1, 0, 0),
    "pytest-q-money-failed-tail.txt": ("pytest", 5, 1, 0, 0),
    "pytest-q-money-ok-tail.txt": ("pytest", 6, 0, 0, 0),
    "unittest-ok.txt": ("unittest", 2, 0, 1, 0),
    "unittest-failed.txt": ("unittest", 1, 1, 1, 1),
    "jest-ok.txt": ("jest", 3, 0, 1, 0),
    "jest-failed.txt": ("jest", 2, 1, 1, 0),
    "vitest-ok.txt": ("vitest", 3, 0, 1, 0),
    "vitest-failed.txt": ("vitest", 2, 1, 1, 0),
    "mocha-ok.txt": ("mocha", 3, 0, 1, 0),
    "mocha-failed.txt": ("mocha", 2, 1, 1, 0),
    "go-test-v-ok.txt": ("go test", 3, 0, 1, 0),
    "go-test-v-failed.txt": ("go test", 2, 1, 1, 0),
    "go-test-ok.txt": ("go test (packages)", 1, 0, 0, 0),
    "go-test-failed.txt": ("go test (packages)", 0, 1, 0, 0),
    "cargo-test-ok.txt": ("cargo test", 3, 0, 1, 0),
    "cargo-test-failed.txt": ("cargo test", 2, 1, 1, 0),
    "rspec-ok.txt": ("rspec", 3, 0, 1, 0),
    "rspec-failed.txt": ("rspec", 2, 1, 1, 0),
    "maven-surefire-ok.txt": ("maven surefire", 3, 0, 1, 0),
    "maven-surefire-failed.txt": ("maven surefire", 2, 1, 1, 0),
    "dotnet-test-ok.txt": ("dotnet test", 1, 0, 0, 0),
    "dotnet-test-failed.txt": ("dotnet test", 0, 1, 0, 0),
}


def test_every_captured_file_is_listed_with_its_source() -> None:
    files = {p.name for p in DATA.glob("*.txt")}
    assert files == set(EXPECTED)
    source = (DATA / "SOURCE.md").read_text()
    for name in files:
        assert name.rsplit("-", 1)[0].split("-v")[0] in source or name in source


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_runner_output_is_read_into_counts(name: str) -> None:
    got = parse_summary((DATA / name).read_text(encoding="utf-8"))
    assert got == TestCounts(*EXPECTED[name])


def test_no_summary_in_other_output() -> None:
    assert parse_summary("Compiling capture v0.1.0\nBuild succeeded.\n3 files changed") is None
    assert parse_summary("") is None


def test_colour_codes_do_not_hide_a_summary() -> None:
    text = "\x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[0m in 0.12s"
    assert parse_summary(text) == TestCounts("pytest", 2, 1, 0, 0)


# What Gemini CLI 0.61.0's run_shell_command sent its model for `python3 -m unittest -q 2>&1 |
# tail -3` (its session record, from the real-CLI act tier): the label sits on the first line.
GEMINI_TAIL_OK = (
    "<untrusted_context>\nOutput: Ran 3 tests in 0.000s\n\nOK\nProcess Group PGID: 42\n"
    "</untrusted_context>"
)


def test_a_shell_tools_output_label_does_not_hide_a_summary() -> None:
    from earnest.effects.shell_outcomes import command_outcomes

    assert parse_summary(GEMINI_TAIL_OK) == TestCounts("unittest", 3, 0, 0, 0)
    red = "Output: 1 failed, 4 passed in 0.31s\nProcess Group PGID: 7"
    assert parse_summary(red) == TestCounts("pytest", 4, 1, 0, 0)
    got = command_outcomes("python3 -m unittest -q 2>&1 | tail -3", ok=True, output=GEMINI_TAIL_OK)
    assert [o.outcome for o in got] == ["success", "success"]


@pytest.mark.parametrize(
    ("sentence", "passed", "total", "all_pass"),
    [
        ("All 86/86 tests pass.", 86, 86, True),
        ("4966/4966 ALL PASSED", 4966, 4966, True),
        ("All 12 tests passed!", 12, None, True),
        ("12 passed, 0 failed.", 12, None, True),
        ("3 of 3 tests passing now.", 3, 3, True),
        ("All tests pass.", None, None, True),
        ("All 40 tests are green and pass.", 40, 40, True),
    ],
)
def test_claimed_counts(
    sentence: str, passed: int | None, total: int | None, all_pass: bool
) -> None:
    c = claimed_counts(sentence)
    assert c is not None and (c.passed, c.total, c.all_pass) == (passed, total, all_pass)


def test_disagreement_names_both_numbers() -> None:
    claim = claimed_counts("4966/4966 ALL PASSED")
    assert claim is not None
    why = disagreement(claim, TestCounts("pytest", 4985, 7, 0, 0))
    assert why == (
        "claimed 4966/4966 passed; the last test run (pytest) printed 4985/4992 passed, 7 failed"
    )
    assert disagreement(claim, TestCounts("pytest", 4966, 0, 3, 0)) is None


# --- the gate with strict_claims ------------------------------------------------------------


def gate_on(
    calls: list[dict[str, object]], message: str, *, strict: bool = True
) -> EvaluationResult:
    gate = EffectGate(EffectGateConfig(enabled=True, strict_claims=strict), env={})
    gate.reset()
    gate.record(calls)
    done = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)
    return gate.apply(done, content=message, task_type="edit")


def bash(command: str, output_file: str, *, ok: bool = True) -> dict[str, object]:
    return {
        "tool_name": "Bash",
        "args": {"command": command},
        "output": (DATA / output_file).read_text(encoding="utf-8"),
        "success": ok,
    }


def test_numbers_the_run_never_printed_are_an_unverified_claim() -> None:
    # pytest really ran and passed 2 tests; the agent reports 86/86.
    result = gate_on([bash("python -m pytest tests", "pytest-ok.txt")], "Done. 86/86 tests pass.")
    assert result.decision is EvaluationDecision.RETRY
    assert result.reason == (
        "unverified-claim: tests pass (claimed 86/86 passed; the last test run (pytest) "
        "printed 2/2 passed)"
    )


def test_all_passed_when_the_last_run_failed() -> None:
    # `npx jest || true`: the call succeeded, its summary did not.
    edit = {"tool_name": "Edit", "args": {"file_path": "src/sum.js"}}
    result = gate_on([edit, bash("npx jest || true", "jest-failed.txt")], "All tests pass now.")
    assert result.decision is EvaluationDecision.RETRY
    assert "the last test run (jest) printed 2/3 passed, 1 failed, 1 skipped" in result.reason


def test_a_failing_run_behind_or_true_is_no_effect() -> None:
    # The summary decides, not the line's exit status: no verified check, so no effect at all.
    result = gate_on([bash("npx jest || true", "jest-failed.txt")], "All tests pass now.")
    assert result.decision is EvaluationDecision.RETRY
    assert result.reason.startswith("completion-without-effect")


def test_the_last_run_decides_not_an_earlier_one() -> None:
    calls = [
        bash("cargo test", "cargo-test-ok.txt"),
        bash("cargo test", "cargo-test-failed.txt", ok=False),
    ]
    result = gate_on(calls, "All 3 tests passed.")
    assert result.decision is EvaluationDecision.RETRY
    assert "printed 2/3 passed, 1 failed" in result.reason
    again = gate_on(list(reversed(calls)), "All 3 tests passed.")
    assert again.decision is EvaluationDecision.COMPLETE


def test_counts_with_no_run_at_all() -> None:
    result = gate_on(
        [{"tool_name": "Edit", "args": {"file_path": "a.py"}, "success": True}],
        "Fixed it; 86/86 pass.",
    )
    assert result.decision is EvaluationDecision.RETRY
    assert "claimed 86/86 passed; no recorded test run printed a summary" in result.reason


def test_agreeing_counts_stand() -> None:
    result = gate_on([bash("mvn -B test", "maven-surefire-ok.txt")], "Ran mvn: 3 passed, 0 failed.")
    assert result.decision is EvaluationDecision.COMPLETE


def test_without_strict_claims_nothing_is_checked() -> None:
    result = gate_on(
        [bash("python -m pytest tests", "pytest-ok.txt")], "86/86 tests pass.", strict=False
    )
    assert result.decision is EvaluationDecision.COMPLETE
