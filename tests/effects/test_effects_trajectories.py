"""Every real transcript, read by earnest.trajectory, through the ledger and the gate."""

from __future__ import annotations

import pytest

from conftest import TRANSCRIPTS
from earnest.effects import (
    DEFAULT_REGISTRY,
    EffectGate,
    EffectGateConfig,
    EffectLedger,
    EvaluationDecision,
    EvaluationResult,
)
from earnest.trajectory import ReadReport, Trajectory, iter_paths, read_trajectories

DONE = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)


def trajectories(relative: str) -> list[Trajectory]:
    return list(read_trajectories(TRANSCRIPTS / relative, report=ReadReport()))


def ledger_for(t: Trajectory, registry=DEFAULT_REGISTRY) -> EffectLedger:  # type: ignore[no-untyped-def]
    ledger = EffectLedger(registry)
    ledger.record(t.tool_results())
    return ledger


def test_every_transcript_goes_through_the_ledger_and_the_gate():
    seen = 0
    for path in sorted(iter_paths([TRANSCRIPTS])):
        for t in read_trajectories(path, report=ReadReport()):
            gate = EffectGate(EffectGateConfig(enabled=True), env={})
            gate.reset()
            gate.record(t.tool_results())
            out = gate.apply(DONE, content=t.final_message or "", request=t.user_request or "")
            assert out.decision in {EvaluationDecision.COMPLETE, EvaluationDecision.RETRY}
            assert gate.ledger.attempted == len(t.tool_calls), path
            assert gate.ledger.succeeded <= gate.ledger.attempted
            seen += 1
    # trajectories in the curated set (tau-bench: 13 in one file; opencode 1.1.65 storage: 2)
    assert seen == 90


def test_unrecorded_results_give_no_credit():
    # a call with no recorded result (the run stopped) is not evidence it happened
    (t, *_) = trajectories("gemini-cli/metaphi-figma-d00f7a9b-stream-no-result.jsonl")
    unknown = [c for c in t.tool_calls if c.outcome == "unknown"]
    assert unknown
    ledger = EffectLedger()
    ledger.record([c.as_tool_result() for c in unknown])
    assert ledger.succeeded == 0 and ledger.effects == ()


def test_antigravity_built_everything_and_ran_nothing():
    (t,) = trajectories("antigravity/applysense-transcript.jsonl")
    ledger = ledger_for(t)
    assert len(ledger.artifacts) >= 70 and not ledger.checks  # 77 writes, zero executions


def test_perfectsnake_never_reached_its_test_run():
    (t,) = trajectories("claude-stream-json/perfectsnake-4873604-claude-stream.jsonl")
    ledger = ledger_for(t)
    assert ledger.artifacts and not ledger.checks
    (t,) = trajectories("claude-stream-json/perfectsnake-b2ee321-claude-stream.jsonl")
    assert {e.kind for e in ledger_for(t).checks} >= {"test", "build"}


def test_mini_swe_agent_runs_django_tests():
    (t,) = trajectories("mini-swe-agent/miniswe-deepseek-django__django-14752.traj.json")
    assert any(e.kind == "test" for e in ledger_for(t).checks)


@pytest.mark.parametrize(
    ("relative", "task_type", "decision"),
    [
        ("claude-code/drmaciver-coverage-test-fix.jsonl", "edit", EvaluationDecision.COMPLETE),
        ("claude-code/kimuson-1af7fc5e-init-empty-repo.jsonl", "create", EvaluationDecision.RETRY),
        ("claude-code/mclaude-91b751c5-d980--hi-QA.jsonl", "qa", EvaluationDecision.COMPLETE),
        ("openhands/openhands-trajs-basic_interactions.json", "qa", EvaluationDecision.COMPLETE),
    ],
)
def test_gate_decisions_on_real_runs(relative: str, task_type: str, decision: EvaluationDecision):
    (t, *_) = trajectories(relative)
    gate = EffectGate(EffectGateConfig(enabled=True), env={})
    gate.reset()
    gate.record(t.tool_results())
    assert gate.apply(DONE, task_type=task_type, content=t.final_message or "").decision is decision


def test_tau_bench_api_actions_count_once_registered():
    runs = trajectories("tau-bench/taubench-gpt-4o-airline.json")
    booking = next(
        t
        for t in runs
        if any(c.name == "book_reservation" and c.outcome == "success" for c in t.tool_calls)
    )
    plain = EffectGate(EffectGateConfig(enabled=True), env={})
    plain.reset()
    plain.record(booking.tool_results())
    assert plain.ledger.effects == ()  # unknown API tools are feedback, not effects
    registry = DEFAULT_REGISTRY.with_overrides(
        {
            name: "action"
            for name in ("book_reservation", "cancel_reservation", "update_reservation_flights")
        }
    )
    gate = EffectGate(EffectGateConfig(enabled=True, registry=registry), env={})
    gate.reset()
    gate.record(booking.tool_results())
    out = gate.apply(DONE, task_type="action")
    assert out.decision is EvaluationDecision.COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"]["effect"]["kind"] == "action"


def test_the_ledger_takes_the_trajectory_models_tool_results():
    (t,) = trajectories("claude-code/willitrain-33c772d9-windows-ide.jsonl")
    results = t.tool_results()
    ledger = EffectLedger()
    ledger.record(results)
    assert ledger.attempted == len(results) and ledger.checks
