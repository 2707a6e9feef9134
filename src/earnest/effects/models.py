"""The effect vocabulary: effect classes, evidence, and the loop's evaluation result.

``EffectEvidence`` is one observed effect (frozen); ``EvaluationResult`` is what an agent
loop's evaluator returns and what :class:`~earnest.effects.gate.EffectGate` filters.

Example:
    >>> ev = EffectEvidence(EffectClass.WORKSPACE_DELTA, "Write", "write", ("src/a.py",))
    >>> ev.to_dict()["effect_class"], ev.artifact_paths
    ('workspace_delta', ('src/a.py',))
    >>> EvaluationResult(EvaluationDecision.COMPLETE).score
    0.5
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any


class EffectClass(StrEnum):
    """The three kinds of verifiable effect (ADR-010)."""

    WORKSPACE_DELTA = "workspace_delta"
    """A file created, modified or deleted, or a state-changing command."""
    VERIFIED_CHECK = "verified_check"
    """A test, lint, type-check or build command that succeeded."""
    GROUNDED_CLAIM = "grounded_claim"
    """An answer grounded in tool feedback or in files that exist (no mutation expected)."""


class EvaluationDecision(StrEnum):
    """What an agent loop's evaluator decided for the current turn."""

    CONTINUE = "continue"
    RETRY = "retry"
    COMPLETE = "complete"
    ESCALATE = "escalate"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class EffectEvidence:
    """One observed effect from one tool call.

    ``tool_name`` is the name as the agent called it; ``kind`` is its canonical kind
    (``write``, ``edit``, ``delete``, ``test``, ``lint``, ``install``, ``vcs``, ``shell`` ...).
    ``artifact_paths`` are the paths the effect touched, as the agent wrote them (relative to
    the workspace or absolute); empty when the effect names no file (``git commit``,
    ``npm install``, an unknown command). For ``kind == "delete"`` every artifact is a path
    that the effect removed. ``command`` is the shell command (or the part of it) that
    produced the effect.
    """

    effect_class: EffectClass
    tool_name: str
    kind: str
    artifact_paths: tuple[str, ...] = ()
    command: str | None = None
    turn_index: int | None = None
    detail: str = ""

    @property
    def removes(self) -> bool:
        """True when the artifacts are paths this effect deleted."""
        return self.kind == "delete"

    def to_dict(self) -> dict[str, Any]:
        return {
            "effect_class": self.effect_class.value,
            "tool_name": self.tool_name,
            "kind": self.kind,
            "artifact_paths": list(self.artifact_paths),
            "command": self.command,
            "turn_index": self.turn_index,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """An evaluator's verdict on a turn: the decision, a score in [0, 1], and why."""

    decision: EvaluationDecision
    score: float = 0.5
    reason: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


__all__ = ["EffectClass", "EffectEvidence", "EvaluationDecision", "EvaluationResult"]
