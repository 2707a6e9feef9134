"""Each simple command of a line gets its own outcome: the shell's semantics and its summary.

The cases of issue 20 ("evidence over exit codes"): a failing test run behind a pipe,
``|| true`` or ``; echo`` is a known failure and never a verified check; a green run piped
through ``tail`` is a known success; a masked run with no summary is unknown.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.effects import EffectLedger, classify_tool_result
from earnest.effects.models import EffectClass
from earnest.effects.shell_outcomes import command_outcomes

PYTEST_RED = "F.....\nFAILED tests/test_money.py::test_round\n1 failed, 5 passed in 0.31s\n"
PYTEST_GREEN = "......\n6 passed in 0.12s\n"
JEST_RED = (
    "Test Suites: 1 failed, 2 passed, 3 total\n"
    "Tests:       1 failed, 11 passed, 12 total\nSnapshots:   0 total\nTime:        1.2 s\n"
)


def outcomes(command: str, ok: bool | None, output: str = "") -> list[tuple[str, str]]:
    return [(o.head, o.outcome) for o in command_outcomes(command, ok=ok, output=output)]


def bash(command: str, output: str, *, ok: bool = True) -> dict[str, object]:
    return {"tool_name": "Bash", "args": {"command": command}, "output": output, "success": ok}


def checks(command: str, output: str, *, ok: bool = True) -> list[str]:
    """The verified-check evidence one Bash call gives."""
    return [
        e.kind
        for e in classify_tool_result(bash(command, output, ok=ok))
        if e.effect_class is EffectClass.VERIFIED_CHECK
    ]


# --- the cases of the issue ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("python -m pytest -q 2>&1 | tail -5", PYTEST_RED),
        ("pytest || true", PYTEST_RED),
        ("pytest; echo finished", PYTEST_RED + "finished\n"),
        ("npm test 2>&1 | tail -20", JEST_RED),
        ("bash -c 'pytest || true'", PYTEST_RED),
        ("ruff check . || true", "x.py:1:8: F401 `os` imported but unused\nFound 3 errors.\n"),
    ],
)
def test_a_failing_run_that_exits_0_is_a_failure_and_no_check(command: str, output: str) -> None:
    got = command_outcomes(command, ok=True, output=output)
    run = next(o for o in got if o.kinds)
    assert run.outcome == "failure"
    assert run.summary is not None and not run.summary.passed
    assert checks(command, output) == []


def test_the_summary_names_what_the_run_printed() -> None:
    run = command_outcomes("npm test 2>&1 | tail -20", ok=True, output=JEST_RED)[0]
    assert run.summary is not None and run.summary.render() == "jest: 11/12 passed, 1 failed"
    assert run.summary.counts is not None and run.summary.counts.failed == 1


def test_a_green_run_through_tail_is_an_honest_check() -> None:
    assert outcomes("pytest -q | tail -3", True, PYTEST_GREEN) == [
        ("pytest", "success"),
        ("tail", "success"),
    ]
    assert checks("pytest -q | tail -3", PYTEST_GREEN) == ["test"]


def test_a_masked_run_with_no_summary_is_unknown_and_not_counted() -> None:
    assert outcomes("pytest | tail", True, "collected 0 items / 3 errors\n")[0] == (
        "pytest",
        "unknown",
    )
    assert checks("pytest | tail", "something else\n") == []
    assert outcomes("pytest || true", True, "")[0] == ("pytest", "unknown")
    assert checks("pytest || true", "") == []
    assert outcomes("bash -c 'pytest || true'", True, "")[0] == ("pytest", "unknown")


def test_errexit_makes_a_silent_run_known() -> None:
    assert outcomes("set -e; pytest; echo ok", True) == [
        ("set", "success"),
        ("pytest", "success"),
        ("echo", "success"),
    ]
    assert checks("set -e; pytest; echo ok", "ok\n") == ["test"]
    # without errexit the same line says nothing about pytest
    assert outcomes("pytest; echo ok", True)[0] == ("pytest", "unknown")
    # set +e turns it off again
    assert outcomes("set -e; set +e; pytest; echo ok", True)[2] == ("pytest", "unknown")
    # the -e flag of bash -c
    assert outcomes("bash -ec 'pytest; echo done'", True)[0] == ("pytest", "success")


def test_and_chain_that_exited_0_ran_everything() -> None:
    assert outcomes("cd x && pytest -q", True, "5 passed in 0.2s") == [
        ("cd", "success"),
        ("pytest", "success"),
    ]
    assert checks("cd x && pytest -q", "5 passed in 0.2s") == ["test"]
    # and with no summary at all, the status alone says so
    assert outcomes("cd x && pytest -q", True) == [("cd", "success"), ("pytest", "success")]


def test_a_failed_line_says_which_part_failed_only_when_it_can() -> None:
    assert outcomes("pytest", False) == [("pytest", "failure")]
    assert outcomes("cd x && pytest -q", False) == [("cd", "unknown"), ("pytest", "unknown")]
    assert outcomes("pytest || make test", False) == [("pytest", "failure"), ("make", "failure")]
    assert outcomes("false && pytest", False) == [("false", "failure"), ("pytest", "unknown")]


def test_pipefail_and_negation() -> None:
    assert outcomes("set -o pipefail; pytest | tail", True)[1] == ("pytest", "success")
    assert outcomes("set -euo pipefail\npytest -q | tee log", True)[1] == ("pytest", "success")
    assert outcomes("! pytest", True) == [("pytest", "failure")]


def test_subshells_and_brace_groups() -> None:
    assert outcomes("( cd x && pytest ) && echo ok", True) == [
        ("cd", "success"),
        ("pytest", "success"),
        ("echo", "success"),
    ]
    assert outcomes("{ pytest; } || true", True)[0] == ("pytest", "unknown")
    # exit in a subshell ends the subshell only
    assert outcomes("(exit 0); pytest", True)[1] == ("pytest", "success")


def test_compound_commands_are_not_modelled_only_summaries_decide() -> None:
    assert ("pytest", "unknown") in outcomes("if true; then pytest; fi", True)
    assert ("pytest", "failure") in outcomes("if true; then pytest; fi", True, PYTEST_RED)


def test_a_summary_decides_even_when_the_line_failed() -> None:
    got = outcomes("cd a; pytest -q; ruff check .", False, "5 passed in 1s\nFound 2 errors.\n")
    assert got == [("cd", "unknown"), ("pytest", "success"), ("ruff", "failure")]
    # a failed call still gives no evidence (the gate's rule for failed calls)
    assert (
        checks("cd a; pytest -q; ruff check .", "5 passed in 1s\nFound 2 errors.\n", ok=False) == []
    )


def test_a_runners_own_error_marker_fails_that_runner() -> None:
    got = outcomes("npm install && npm test", False, "npm ERR! code ELIFECYCLE\n")
    assert got == [("npm", "success"), ("npm", "failure")]
    got = outcomes("pytst -q || true", True, "bash: line 1: pytst: command not found\n")
    assert got[0] == ("pytst", "failure")


def test_command_substitutions_are_separate_and_unseen() -> None:
    assert outcomes("echo $(pytest)", True) == [("echo", "success"), ("pytest", "unknown")]


# --- the ledger keeps them for claims --------------------------------------------------------


def test_the_ledger_names_the_last_test_run_and_its_outcome() -> None:
    ledger = EffectLedger()
    ledger.record([bash("pytest -q | tail -3", PYTEST_GREEN)], turn_index=1)
    ledger.record([bash("python -m pytest -q 2>&1 | tail -5", PYTEST_RED)], turn_index=2)
    ledger.record([bash("ruff check .", "All checks passed!\n")], turn_index=3)
    runs = ledger.check_runs
    assert [(r.command, r.kind, r.outcome, r.seq) for r in runs] == [
        ("pytest -q", "test", "success", 1),
        ("python -m pytest -q 2>&1", "test", "failure", 2),
        ("ruff check .", "lint", "success", 3),
    ]
    last = ledger.last_check_run()
    assert last is not None and last.outcome == "failure" and last.summary.startswith("pytest")
    assert last.counts is not None and (last.counts.passed, last.counts.failed) == (5, 1)
    assert last.line == "python -m pytest -q 2>&1 | tail -5" and last.turn_index == 2
    lint = ledger.last_check_run(("lint",))
    assert lint is not None and lint.succeeded
    # only the green run is a verified check
    assert [e.command for e in ledger.checks] == ["pytest -q", "ruff check ."]
    assert ledger.shell_calls[1].success is True  # what the tool reported, unchanged
    assert [o.outcome for o in ledger.shell_calls[1].outcomes] == ["failure", "success"]


def test_no_test_run_recorded() -> None:
    ledger = EffectLedger()
    ledger.record([bash("ls", "a.py\n")])
    assert ledger.last_check_run() is None and ledger.check_runs == ()


# --- total on any text -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([*"ab |&;()!{}'\"\\$`\n-e", "set ", "pytest ", "exit "])).map("".join),
    st.sampled_from([True, False, None]),
)
def test_never_raises_and_every_outcome_is_known_vocabulary(command: str, ok: bool | None) -> None:
    for o in command_outcomes(command, ok=ok, output="1 failed in 0.1s"):
        assert o.outcome in {"success", "failure", "unknown"}
