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

from claude_session import Session


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
