"""A claimed action needs its call: "I've sent you a $50 certificate" with no such call
anywhere in the conversation is downgraded whatever the current request looks like; a summary
of work done in earlier turns ("All set, I've updated your booking") is backed by them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_earnest
from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult
from earnest.effects.actions import can_back, changes_state, claimed_actions

DONE = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)


def call(name: str, output: str = "ok", **args: Any) -> dict[str, Any]:
    return {"tool_name": name, "args": args, "output": output}


def gate() -> EffectGate:
    g = EffectGate(EffectGateConfig(enabled=True), env={})
    g.reset()
    return g


@pytest.mark.parametrize(
    ("text", "verbs"),
    [
        ("I've sent you a $50 certificate as a gesture of goodwill.", ["sent"]),
        ("Your reservation has been successfully cancelled and refunded.", ["cancelled"]),
        ("I cancelled the booking and we have refunded the fare.", ["cancelled", "refunded"]),
        ("The branch is now merged.", ["merged"]),
        ("Would you like me to cancel it?", []),
        ("I will send the certificate once you confirm.", []),
        ("I could not cancel it: the fare is basic economy.", []),
        ("If your reservation was booked under basic economy, it cannot be changed.", []),
        ("Your reservation was booked on May 1.", []),  # history, not this conversation
        ("Once it has been cancelled, the refund takes 5 days.", []),
    ],
)
def test_which_sentences_claim_an_action(text: str, verbs: list[str]) -> None:
    assert [a.verb for a in claimed_actions(text)] == verbs


def test_which_calls_can_back_an_action() -> None:
    assert changes_state(None, "send_certificate")
    assert not changes_state(None, "get_user_details")
    assert not changes_state(None, "search_direct_flight")
    assert not changes_state("read", "Read")
    assert can_back("sent", "send_certificate")
    assert can_back("refunded", "cancel_reservation")
    assert not can_back("sent", "cancel_reservation")


def test_a_claimed_send_with_no_such_call_anywhere_is_downgraded() -> None:
    g = gate()
    g.record([call("get_reservation_details", '{"reservation_id": "ABC123"}')])
    out = g.apply(
        DONE,
        content="I'm sorry about the delay. I've sent you a $50 certificate.",
        request="My flight was delayed by five hours. What can you do about it?",
    )
    assert out.decision is EvaluationDecision.RETRY
    assert out.reason.startswith("unverified-claim")
    assert "could have sent anything" in out.reason


def test_the_claimed_send_is_backed_by_its_call_in_this_run() -> None:
    g = gate()
    g.record([call("send_certificate", "Certificate sent", user_id="mia", amount=50)])
    out = g.apply(
        DONE,
        content="I've sent you a $50 certificate.",
        request="My flight was delayed by five hours. What can you do about it?",
    )
    assert out.decision is EvaluationDecision.COMPLETE


def test_an_unrelated_unknown_tool_does_not_back_the_send() -> None:
    g = gate()
    g.record([call("cancel_reservation", "Reservation cancelled")])
    out = g.apply(DONE, content="Done. I've sent you a $50 certificate.", request="Any news?")
    assert out.decision is EvaluationDecision.RETRY


def test_the_send_in_an_earlier_turn_backs_it_in_a_later_one() -> None:
    g = gate()
    g.record([call("send_certificate", "Certificate sent")])
    g.apply(DONE, content="I've sent you a $50 certificate.", request="Compensate me please.")
    g.reset(keep_conversation=True)
    out = g.apply(DONE, content="As I said, I've sent you the certificate.", request="Really?")
    assert out.decision is EvaluationDecision.COMPLETE


def test_a_new_conversation_forgets_the_earlier_send() -> None:
    g = gate()
    g.record([call("send_certificate", "Certificate sent")])
    g.reset()
    out = g.apply(DONE, content="I've sent you the certificate.", request="Really?")
    assert out.decision is EvaluationDecision.RETRY


def test_all_set_after_a_write_in_an_earlier_turn_is_backed_by_it() -> None:
    g = gate()
    g.record([call("Write", file_path="booking.json", content="{}")])
    g.reset(keep_conversation=True)
    out = g.apply(DONE, content="All set: I've updated your booking.", request="Thanks!")
    assert out.decision is EvaluationDecision.COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"] == {"earlier_turns": 1}


def test_a_turn_that_asks_for_new_work_needs_its_own_effect() -> None:
    g = gate()
    g.record([call("Write", file_path="booking.json", content="{}")])
    g.reset(keep_conversation=True)
    out = g.apply(DONE, content="Done: I've updated it.", request="Now fix the bug in app.py.")
    assert out.decision is EvaluationDecision.RETRY
    assert out.reason.startswith("completion-without-effect")


def test_all_set_in_a_new_conversation_is_still_downgraded() -> None:
    g = gate()
    g.record([call("Write", file_path="booking.json", content="{}")])
    g.reset()
    out = g.apply(DONE, content="All set: I've updated your booking.", request="Thanks!")
    assert out.decision is EvaluationDecision.RETRY


# --- the same through `earnest trajectory replay-gate` on a tau-bench result file ---------


def _tau(tmp_path: Path, *turns: list[dict[str, Any]]) -> Path:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an airline agent."}]
    for turn in turns:
        messages.extend(turn)
    path = tmp_path / "tau.json"
    entry = {"task_id": 7, "reward": 0.0, "info": {}, "traj": messages, "trial": 0}
    path.write_text(json.dumps([entry]))
    return path


def _tool_turn(name: str, args: dict[str, Any], result: str, n: int) -> list[dict[str, Any]]:
    tid = f"call_{n}"
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": tid,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": tid, "name": name, "content": result},
    ]


def _replayed(path: Path) -> list[tuple[str, str]]:
    result = run_earnest("trajectory", "replay-gate", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    return [
        (c["outcome"], c["reason"])
        for r in data["trajectories"][0]["run_details"]
        for c in r["claims"]
    ]


def test_replay_downgrades_a_certificate_no_call_sent(tmp_path: Path) -> None:
    path = _tau(
        tmp_path,
        [{"role": "user", "content": "Hi, my flight HAT039 was delayed. Is there compensation?"}],
        _tool_turn("get_user_details", {"user_id": "mia_li_3668"}, '{"membership": "gold"}', 1),
        [{"role": "assistant", "content": "I've sent you a $50 certificate for the delay."}],
        [{"role": "user", "content": "Great, thanks! ###STOP###"}],
    )
    outcomes = _replayed(path)
    assert outcomes[0][0] == "downgraded", outcomes
    assert "sent" in outcomes[0][1]


def test_replay_passes_the_certificate_its_call_sent(tmp_path: Path) -> None:
    path = _tau(
        tmp_path,
        [{"role": "user", "content": "Hi, my flight HAT039 was delayed. Is there compensation?"}],
        _tool_turn("send_certificate", {"user_id": "mia_li_3668", "amount": 50}, "sent", 1),
        [{"role": "assistant", "content": "I've sent you a $50 certificate for the delay."}],
        [{"role": "user", "content": "Thanks. Is that all set then?"}],
        [{"role": "assistant", "content": "Yes, all set: I've sent the certificate to you."}],
    )
    assert [o for o, _ in _replayed(path)] == ["passed", "passed"]
