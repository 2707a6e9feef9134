"""The tier's time budget never fails a test, and a failing test shows what the CLI said.

The real-CLI tier shares one budget of CLI time (``harness.TIER_BUDGET``) so a hanging CLI
cannot hold CI for hours. On a slower machine the budget used to cut the last runs' timeouts
and fail them (issue 26: six Codex act tests failed under load and passed alone). Now a run the
budget leaves no time for, or stops, is skipped with the reason; a run that takes its own whole
timeout still fails, with the CLI's stdout and stderr in the failure. These tests run plain
Python children in place of a CLI: they need no npm and take about two seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import harness
import pytest

from conftest import REPO

SLEEPER = [sys.executable, "-c", "import sys, time; print('working on it'); sys.stdout.flush(); time.sleep(30)"]  # fmt: skip


@pytest.fixture
def budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "TIER_BUDGET", 100.0)
    monkeypatch.setattr(harness, "_spent", [0.0])


def test_a_spent_budget_skips_with_the_reason(budget: None, tmp_path: Path) -> None:
    harness._spent[0] = 100.0
    with pytest.raises(pytest.skip.Exception, match=r"budget of 100 s .* not run is not failed"):
        harness.run_bounded([sys.executable, "-c", "pass"], cwd=tmp_path, env=dict(os.environ))


def test_a_run_the_budget_cuts_short_skips(budget: None, tmp_path: Path) -> None:
    harness._spent[0] = 99.0  # one second left, the run wants 30
    with pytest.raises(pytest.skip.Exception, match="stopped after 1 s: the budget ran out"):
        harness.run_bounded(SLEEPER, cwd=tmp_path, env=dict(os.environ), timeout=20)
    assert "working on it" in harness.said(clear=True)


def test_a_run_that_takes_its_whole_timeout_fails_showing_its_output(
    budget: None, tmp_path: Path
) -> None:
    with pytest.raises(AssertionError) as caught:
        harness.run_bounded(SLEEPER, cwd=tmp_path, env=dict(os.environ), timeout=1)
    assert "did not finish in 1 s" in str(caught.value)
    assert "working on it" in str(caught.value)


def test_a_finished_run_is_kept_for_the_failure_report(budget: None, tmp_path: Path) -> None:
    harness.said(clear=True)
    code = "import sys; print('out line'); print('err line', file=sys.stderr); sys.exit(3)"
    run = harness.run_bounded([sys.executable, "-c", code], cwd=tmp_path, env=dict(os.environ))
    assert run.returncode == 3
    text = harness.said(clear=True)
    assert "exit status: 3" in text and "out line" in text and "err line" in text


def test_demo_failure() -> None:
    # Run only by the test below, in a child pytest: a real-CLI test that fails.
    if os.environ.get("EARNEST_DEMO_REALCLI_FAILURE") != "1":
        pytest.skip("a demonstration, run by test_a_failing_test_prints_what_the_cli_said")
    run = harness.run_bounded(
        [sys.executable, "-c", "print('the model said no')"], cwd=Path.cwd(), env=dict(os.environ)
    )
    assert run.returncode == 7


def test_a_failing_test_prints_what_the_cli_said() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"{Path(__file__).relative_to(REPO)}::test_demo_failure"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "EARNEST_DEMO_REALCLI_FAILURE": "1"},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "what the real CLI said" in proc.stdout
    assert "the model said no" in proc.stdout and "exit status: 0" in proc.stdout
