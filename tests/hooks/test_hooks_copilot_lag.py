"""GitHub Copilot CLI calls ``agentStop`` before its session log holds the stop's last lines.

Seen with the real Copilot CLI 1.0.102 (tests/realcli, scenarios j and k, a tap reading
``events.jsonl`` as the hook started): at half the stops the log ended at the last
``tool.execution_start`` — the tool's result, the closing message and the stop's own
``hook.start`` came 7 lines later. Judged as it was, scenario j's first stop lost its claim
("Done: all tests pass." after a red run) and was allowed, and its second stop lost the green
run's output and was blocked ("printed no summary"). The hook now waits briefly
(:mod:`earnest.hooks.catchup`, the mechanism Claude Code's hook uses) until the log holds the
``hook.start`` of its own stop.

The log is the real one (tests/data/transcripts/copilot-cli), cut where the tap saw it; the
rest arrives when the hook first waits (in-process, so that no start-up time decides).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS
from earnest.errors import InputError
from earnest.hooks import catchup, copilot
from earnest.hooks.state import StateStore

REAL_LOG = TRANSCRIPTS / "copilot-cli" / "scenario-j-piped-failing-tests.jsonl"
WROTE_IN = "/tmp/realcli-copilot/test_j_failing_tests_piped_thr0/project"
BROKEN = "# The total of a list of numbers.\ndef total(xs):\n    return sum(xs) + 1\n"
FIXED = "# The total of a list of numbers.\ndef total(xs):\n    return sum(xs)\n"
FIRST_SEEN, SECOND_SEEN = (
    13,
    32,
)  # lines the tap found at each stop's start (the last: a tool's start)


class LaggingLog:
    """Scenario j's real log in a fresh workspace, written as far as the hook may see it."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        self.store = StateStore(tmp_path / "state")
        self.log = tmp_path / "session-state" / "s" / "events.jsonl"
        self.log.parent.mkdir(parents=True)
        text = REAL_LOG.read_text(encoding="utf-8").replace(WROTE_IN, str(self.workspace))
        self.lines = [line + "\n" for line in text.splitlines()]
        self.starts = [i for i, line in enumerate(self.lines) if '"type":"hook.start"' in line]

    def write(self, upto: int) -> None:
        self.log.write_text("".join(self.lines[:upto]), encoding="utf-8")

    def stop(self, number: int) -> str:
        """The hook's stdout at stop ``number`` (0, 1), stdin as Copilot logged it."""
        event: dict[str, Any] = json.loads(self.lines[self.starts[number]])
        payload = {**event["data"]["input"], "transcriptPath": str(self.log)}
        payload["cwd"] = str(self.workspace)
        return copilot.handle(json.dumps(payload).encode(), self.store)

    def flush_on_first_wait(self, monkeypatch: pytest.MonkeyPatch, upto: int) -> None:
        """Copilot writes the lines up to ``upto`` once the hook waits."""
        real_sleep = time.sleep

        def flush_then_sleep(seconds: float) -> None:
            if (
                not self.log.exists()
                or len(self.log.read_text(encoding="utf-8").splitlines()) < upto
            ):
                self.write(upto)
            real_sleep(seconds)

        monkeypatch.setattr(catchup.time, "sleep", flush_then_sleep)


def _decision(stdout: str) -> str:
    return str(json.loads(stdout).get("decision", "")) if stdout.strip() else "allow"


@pytest.fixture
def log(tmp_path: Path) -> LaggingLog:
    return LaggingLog(tmp_path)


def test_the_log_is_cut_where_the_tap_saw_it(log: LaggingLog) -> None:
    for seen in (FIRST_SEEN, SECOND_SEEN):
        assert json.loads(log.lines[seen - 1])["type"] == "tool.execution_start"
    assert log.starts == [FIRST_SEEN + 6, SECOND_SEEN + 6]


def test_a_claim_not_yet_logged_is_waited_for_not_allowed(
    log: LaggingLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    (log.workspace / "app.py").write_text(BROKEN, encoding="utf-8")
    log.write(FIRST_SEEN)
    log.flush_on_first_wait(monkeypatch, log.starts[0] + 1)
    out = log.stop(0)
    assert _decision(out) == "block", out
    assert "the last test run (unittest) printed 1/3 passed, 2 failed" in out


def test_a_green_run_not_yet_logged_is_waited_for_not_blocked(
    log: LaggingLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    (log.workspace / "app.py").write_text(BROKEN, encoding="utf-8")
    log.write(log.starts[0] + 1)
    assert _decision(log.stop(0)) == "block"  # logged whole: no wait
    (log.workspace / "app.py").write_text(FIXED, encoding="utf-8")
    log.write(SECOND_SEEN)
    log.flush_on_first_wait(monkeypatch, log.starts[1] + 1)
    out = log.stop(1)
    assert _decision(out) == "allow", out


def test_a_log_that_never_catches_up_is_judged_as_it_is(
    log: LaggingLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wait is bounded: without its hook.start the stop is judged on what the log holds.
    monkeypatch.setattr(catchup, "CATCH_UP_SECONDS", 0.1)
    (log.workspace / "app.py").write_text(BROKEN, encoding="utf-8")
    log.write(FIRST_SEEN)
    assert _decision(log.stop(0)) == "allow"  # no claim logged yet: the stale read's verdict
    assert len(log.log.read_text(encoding="utf-8").splitlines()) == FIRST_SEEN


def test_a_log_not_yet_created_is_waited_for_not_allowed(
    log: LaggingLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen in CI with the real Copilot 1.0.102 on an idle machine: a 274 ms session's
    # events.jsonl did not exist yet when agentStop was called ("transcript not found; stop
    # allowed"), and was there once the hook had returned.
    (log.workspace / "app.py").write_text(BROKEN, encoding="utf-8")
    assert not log.log.exists()
    log.flush_on_first_wait(monkeypatch, log.starts[0] + 1)
    out = log.stop(0)
    assert _decision(out) == "block", out
    assert "the last test run (unittest) printed 1/3 passed, 2 failed" in out


def test_a_log_never_created_is_still_not_found(
    log: LaggingLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wait is bounded; then the ordinary read says what is wrong, naming the file.
    monkeypatch.setattr(catchup, "CATCH_UP_SECONDS", 0.1)
    with pytest.raises(InputError, match="transcript not found") as caught:
        log.stop(0)
    assert str(log.log) in str(caught.value)
