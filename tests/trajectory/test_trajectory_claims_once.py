"""``trajectory score`` checks the final message's claims once: the replayed gate's check is
the ``claims`` field, with the results the separate check (said_did.check_claims) gave."""

from __future__ import annotations

from typing import Any

import pytest

import earnest.effects.claims as claims_module
from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, iter_paths, read_trajectories
from earnest.trajectory.battery import score_trajectory
from earnest.trajectory.model import Message, ToolCall, Trajectory
from earnest.trajectory.said_did import check_claims

# The one trajectory of the corpus where the two views word a reason differently: the replay
# sees the conversation's turns, and the publishing call was in an earlier one.
EARLIER_TURN = {
    ("said it published something", "a state-changing call in this run"):
        "state-changing calls in earlier turns",
}  # fmt: skip


def test_the_claims_field_agrees_with_the_separate_check_on_every_real_transcript() -> None:
    checked = 0
    for path in sorted(iter_paths([TRANSCRIPTS])):
        for t in read_trajectories(path, report=ReadReport()):
            result = score_trajectory(t)
            separate = check_claims(t)
            assert result.claims is not None
            got = [(c.claim, c.verified) for c in result.claims]
            assert got == [(c.claim, c.verified) for c in separate], path
            for once, twice in zip(result.claims, separate, strict=True):
                assert once.why == EARLIER_TURN.get((twice.claim, twice.why), twice.why), path
            checked += len(separate)
    assert checked >= 20  # the corpus makes claims: the comparison can fail


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = claims_module.verify_claims

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(claims_module, "verify_claims", counting)
    return seen


def _run(final: str, *, termination: str = "normal") -> Trajectory:
    from earnest.trajectory.model import Termination

    return Trajectory(
        "t", "s", "claude-code",
        user_request="Run the tests.",
        final_message=final,
        messages=(Message("user", "Run the tests.", 0, kind="prompt"),
                  Message("assistant", final, 2)),
        tool_calls=(ToolCall("1", "Bash", {"command": "python -m pytest -q | tail -3"},
                             output_excerpt="1 failed, 2 passed", outcome="success", position=1),),
        termination=Termination(termination),  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_score_checks_the_claims_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _calls(monkeypatch)
    result = score_trajectory(_run("Done: all tests pass."))
    assert len(seen) == 1  # the replay's check (before: the replay's and a second one)
    assert result.claims is not None and [(c.claim, c.verified) for c in result.claims] == [
        ("tests pass", False)
    ]
    assert result.outcome == "completion_without_effect"


def test_without_a_final_claim_the_separate_check_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _calls(monkeypatch)
    result = score_trajectory(_run("Done: all tests pass.", termination="api_error"))
    assert result.outcome == "abnormal"
    assert result.claims is not None and [c.claim for c in result.claims] == ["tests pass"]
    assert len(seen) == 1
    off = score_trajectory(_run("Done: all tests pass."), strict_claims=False)
    assert off.claims is None
