"""The effect vocabulary and the evaluation result."""

from __future__ import annotations

import dataclasses

import pytest

from earnest.effects import EffectClass, EffectEvidence, EvaluationDecision, EvaluationResult


def test_the_three_effect_classes_and_five_decisions():
    assert [c.value for c in EffectClass] == ["workspace_delta", "verified_check", "grounded_claim"]
    assert [d.value for d in EvaluationDecision] == [
        "continue",
        "retry",
        "complete",
        "escalate",
        "fail",
    ]


def test_evidence_is_frozen_and_serialisable():
    ev = EffectEvidence(
        EffectClass.WORKSPACE_DELTA, "Bash", "delete", ("a.py",), "rm a.py", 2, "rm"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.kind = "write"  # type: ignore[misc]
    assert ev.removes and ev.to_dict() == {
        "effect_class": "workspace_delta", "tool_name": "Bash", "kind": "delete",
        "artifact_paths": ["a.py"], "command": "rm a.py", "turn_index": 2, "detail": "rm",
    }  # fmt: skip
    assert not EffectEvidence(EffectClass.VERIFIED_CHECK, "Bash", "test").removes


def test_evaluation_result_defaults_match_the_design():
    r = EvaluationResult(EvaluationDecision.COMPLETE)
    assert (r.score, r.reason, r.metrics, r.metadata) == (0.5, "", {}, {})
    assert EvaluationResult(EvaluationDecision.RETRY).metadata is not r.metadata
