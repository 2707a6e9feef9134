"""The stop hook on a damaged transcript: one bad line is skipped, the gate still judges."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_session import Session, blocked, decision

HOSTILE = [
    '{"type": "user", "epoch": ' + "9" * 5000 + "}",
    "[" * 100_000 + "]" * 100_000,
    '{"type": ["user"], "message": {"role": "user", "content": "x"}}',
    '{"type": "user", "x": "\x00"}',
]


def claimed_fix_without_effect(session: Session, damage: list[str]) -> None:
    session.prompt("Fix the crash in app.py and make the tests pass.")
    session.tool("Read", {"file_path": str(session.workspace / "README.md")}, "no such file")
    with session.transcript.open("a", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in damage))
    session.say("Done: I fixed the crash in app.py \ud800 and all tests pass.")


@pytest.mark.parametrize("damage", [[], HOSTILE[:1], HOSTILE[1:2], HOSTILE[2:3], HOSTILE])
def test_bad_lines_do_not_let_an_unbacked_completion_through(
    tmp_path: Path, damage: list[str]
) -> None:
    session = Session(tmp_path)
    claimed_fix_without_effect(session, damage)
    result = session.stop()
    assert blocked(result), result.stdout + result.stderr
    assert decision(result)["reason"].startswith("completion-without-effect")
