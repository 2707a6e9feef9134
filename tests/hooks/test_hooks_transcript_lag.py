"""Claude Code can fire Stop before its transcript holds the stop's last lines.

Seen with the real CLI (tests/realcli, scenario g): the main Stop arrived while the transcript
still lacked the subagent's Task result and the closing message, and the hook judged a run
with "1 tool call(s), 0 succeeded": a false block. The hook now waits briefly for the
transcript to hold the ``last_assistant_message`` the stop reports.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from claude_session import Session

from earnest.hooks import catchup, claude_code
from earnest.hooks.state import StateStore


def _lagging_session(tmp_path: Path) -> tuple[Session, list[str]]:
    session = Session(tmp_path)
    session.prompt("Write the release notes into notes.md.")
    target = session.workspace / "notes.md"
    target.write_text("# Notes\n", encoding="utf-8")
    session.tool("Write", {"file_path": str(target), "content": "# Notes\n"}, "File created")
    session.say("Wrote notes.md.")
    lines = session.transcript.read_text(encoding="utf-8").splitlines(keepends=True)
    # What the hook sees at first: the prompt and the tool call, not its result nor the answer.
    session.transcript.write_text("".join(lines[:2]), encoding="utf-8")
    return session, lines[2:]


def _decision(stdout: str) -> str:
    return str(json.loads(stdout).get("decision", "")) if stdout.strip() else "allow"


def test_a_transcript_that_catches_up_is_judged_whole(tmp_path: Path) -> None:
    session, rest = _lagging_session(tmp_path)

    def flush_later() -> None:
        time.sleep(0.3)
        with session.transcript.open("a", encoding="utf-8") as fh:
            fh.writelines(rest)

    writer = threading.Thread(target=flush_later)
    writer.start()
    try:
        result = session.stop(last_assistant_message="Wrote notes.md.")
    finally:
        writer.join()
    assert _decision(result.stdout) == "allow", result.stdout


def test_a_transcript_that_never_catches_up_is_judged_as_it_is(tmp_path: Path) -> None:
    # The wait is bounded: the stop is judged on what the transcript holds (and here blocked,
    # since the write's result never arrived), never held past the catch-up time.
    session, _ = _lagging_session(tmp_path)
    result = session.stop(last_assistant_message="Wrote notes.md.")
    assert _decision(result.stdout) == "block", result.stdout


FAILING = "FAIL: test_pair (test_app.TotalTest.test_pair)\n\nRan 3 tests in 0.001s\n\nFAILED (failures=1)\n"
PASSING = "...\n" + "-" * 70 + "\nRan 3 tests in 0.001s\n\nOK\n"
RUN = "python3 -m unittest 2>&1 | tail -5"
CLAIM = "Done: all tests pass."


def test_a_repeated_final_message_waits_for_the_lines_after_the_last_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent says the same words at two stops. At the second stop the transcript has not
    # yet flushed the hook's feedback, the fix, the green run and the repeated claim: its
    # final message (the first claim, already judged) equals last_assistant_message, and
    # judging that stale run blocks an honest stop. The hook must wait for a final message
    # written after the lines the previous stop read. In-process, so that the lines arrive
    # exactly when the hook first waits (a subprocess's start-up time would decide).
    session = Session(tmp_path)
    session.prompt("fix the bug in app.py and make sure the tests pass")
    app = session.workspace / "app.py"
    app.write_text("def total(xs):\n    return sum(xs) + 1\n", encoding="utf-8")
    session.tool("Bash", {"command": RUN}, FAILING)
    session.say(CLAIM)
    store = StateStore(session.state)

    def stop(active: bool) -> str:
        payload = {
            "session_id": session.session_id,
            "transcript_path": str(session.transcript),
            "cwd": str(session.workspace),
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            "last_assistant_message": CLAIM,
        }
        return claude_code.handle(json.dumps(payload).encode(), store)

    first = stop(False)
    assert _decision(first) == "block", first
    mark = session.transcript.stat().st_size
    # Claude Code's feedback to the model is a meta record: no new prompt.
    session.append(
        {
            "type": "user",
            "isMeta": True,
            "message": {"role": "user", "content": "Stop hook feedback:\n" + first},
        }
    )
    app.write_text("def total(xs):\n    return sum(xs)\n", encoding="utf-8")
    session.tool("Bash", {"command": "sed -i 's/sum(xs) + 1/sum(xs)/' app.py"}, "")
    session.tool("Bash", {"command": RUN}, PASSING)
    session.say(CLAIM)
    text = session.transcript.read_bytes()
    session.transcript.write_bytes(text[:mark])
    real_sleep = time.sleep

    def flush_then_sleep(seconds: float) -> None:
        with session.transcript.open("ab") as fh:
            fh.write(text[mark:])
        real_sleep(seconds)

    monkeypatch.setattr(catchup.time, "sleep", flush_then_sleep)
    second = stop(True)
    assert _decision(second) == "allow", second
    assert session.transcript.read_bytes() == text  # the hook waited, and so read it all


def _first_stop(session: Session, store: StateStore, last: str | None) -> str:
    payload: dict[str, object] = {
        "session_id": session.session_id,
        "transcript_path": str(session.transcript),
        "cwd": str(session.workspace),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    if last is not None:
        payload["last_assistant_message"] = last
    return claude_code.handle(json.dumps(payload).encode(), store)


@pytest.mark.parametrize("last", ["Done: I fixed the bug.", None])
def test_a_transcript_not_yet_created_is_waited_for_not_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, last: str | None
) -> None:
    # Seen in CI with the real Claude Code 2.1.197 on an idle machine (scenario c: "Done"
    # with no tool call): the first Stop came before the transcript existed, and the hook said
    # "transcript not found; stop allowed" — a done with no effect let through.
    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py.")
    session.say("Done: I fixed the bug.")
    text = session.transcript.read_bytes()
    session.transcript.unlink()
    real_sleep = time.sleep

    def create_then_sleep(seconds: float) -> None:
        if not session.transcript.exists():
            session.transcript.write_bytes(text)
        real_sleep(seconds)

    monkeypatch.setattr(catchup.time, "sleep", create_then_sleep)
    out = _first_stop(session, StateStore(session.state), last)
    assert _decision(out) == "block", out
    assert "completion-without-effect" in out


def test_a_transcript_never_created_is_still_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wait is bounded; then the ordinary read says what is wrong, naming the file.
    from earnest.errors import InputError

    monkeypatch.setattr(catchup, "CATCH_UP_SECONDS", 0.1)
    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py.")
    session.transcript.unlink()
    started = time.monotonic()
    with pytest.raises(InputError, match="transcript not found") as caught:
        _first_stop(session, StateStore(session.state), "Done.")
    assert str(session.transcript) in str(caught.value)
    assert time.monotonic() - started < 5
