"""The Claude Code hook's block budget: per prompt, `stop_hook_active`, configuration, state."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_session import Session, blocked, decision


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


# ------------------------------------------------------------------------ budget


def _unfinished_change(session: Session) -> None:
    session.prompt("Rename the function foo to bar in lib.py.")
    session.say("Renamed foo to bar.")


def test_budget_two_blocks_then_allowed_with_exhausted_note(session: Session) -> None:
    _unfinished_change(session)
    first = session.stop()
    assert blocked(first)
    session.append(
        {
            "type": "user",
            "isMeta": True,
            "message": {
                "role": "user",
                "content": "Stop hook feedback:\n" + decision(first)["reason"],
            },
        }
    )
    session.say("Renamed foo to bar, as requested.")
    second = session.stop(active=True)
    assert blocked(second)
    session.say("It is renamed.")
    third = session.stop(active=True)
    assert not blocked(third)
    assert "effect_gate_exhausted" in decision(third)["systemMessage"]
    state = session.state_file()
    assert state["blocks"] == 2 and state["last_decision"] == "effect_gate_exhausted"


def test_a_new_user_prompt_resets_the_budget(session: Session) -> None:
    _unfinished_change(session)
    assert blocked(session.stop())
    assert blocked(session.stop(active=True))
    assert not blocked(session.stop(active=True))
    session.prompt("Now also rename baz to qux in lib.py.")
    session.say("Renamed baz to qux.")
    assert blocked(session.stop())
    assert session.state_file()["blocks"] == 1


def test_stop_hook_active_never_lets_blocks_exceed_the_budget(session: Session) -> None:
    """Even if every continuation looked like a new prompt, blocks stop at the budget."""
    _unfinished_change(session)
    outcomes = []
    for i in range(6):
        outcomes.append(blocked(session.stop(active=i > 0)))
        session.prompt(f"(continuation {i}) Rename the function foo to bar in lib.py.")
        session.say("Renamed.")
    assert outcomes[:3] == [True, True, False]


def test_budget_from_project_config(session: Session) -> None:
    (session.workspace / ".earnest.toml").write_text("[hooks]\nmax_downgrades = 1\n")
    _unfinished_change(session)
    assert blocked(session.stop())
    result = session.stop(active=True)
    assert not blocked(result) and "effect_gate_exhausted" in result.stdout


def test_zero_budget_only_annotates(session: Session) -> None:
    (session.workspace / "earnest.toml").write_text("[effects]\nmax_downgrades = 0\n")
    _unfinished_change(session)
    result = session.stop()
    assert not blocked(result)
    assert "effect_gate_exhausted" in decision(result)["systemMessage"]


def test_disabled_in_project_config(session: Session) -> None:
    (session.workspace / "earnest.toml").write_text("[hooks]\nenabled = false\n")
    _unfinished_change(session)
    result = session.stop()
    assert result.stdout == "" and result.stderr == ""


def test_state_offset_advances_between_stops(session: Session) -> None:
    _unfinished_change(session)
    session.stop()
    first = session.state_file()["offset"]
    assert first == session.transcript.stat().st_size
    session.say("Still renamed.")
    session.stop(active=True)
    second = session.state_file()["offset"]
    assert second == session.transcript.stat().st_size > first
