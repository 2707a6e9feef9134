"""The scoring vocabulary: dimensions, per-criterion judgements and dimension scores.

Each scorer judges one :class:`TrajectoryDimension` of a :class:`~earnest.trajectory.Trajectory`
deterministically (no model calls). Like tau2-bench's evaluators it records every criterion it
judged — met, not met, or not engaged — with the reason, and then a
:class:`DimensionScore` ``(score, confidence, reason)``. ``confidence`` is low when the
trajectory does not exercise the dimension (no tool calls, no failures to recover from), so
the confidence-weighted aggregate of a trajectory is not dragged by axes it never engaged.

Example:
    >>> s = TrajectoryScore({TrajectoryDimension.PLANNING: DimensionScore(1.0, 0.5, "plan"),
    ...                      TrajectoryDimension.REFUSAL: DimensionScore(0.0, 0.0, "n/a")})
    >>> s.aggregate
    1.0
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from earnest.trajectory.model import Trajectory


class TrajectoryDimension(enum.StrEnum):
    """The axes a trajectory is scored on (DESIGN.md vocabulary)."""

    PLANNING = "planning"
    TOOL_GROUNDING = "tool_grounding"
    RECOVERY = "recovery"
    REFUSAL = "refusal"
    EFFECT_GROUNDING = "effect_grounding"


@dataclass(frozen=True, slots=True)
class Criterion:
    """One criterion a scorer judged: ``met`` True/False, or None when not engaged."""

    name: str
    met: bool | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "met": self.met, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class DimensionScore:
    """``score`` and ``confidence`` in [0, 1], the ``reason``, and the criteria judged."""

    score: float
    confidence: float
    reason: str
    criteria: tuple[Criterion, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 4),
            "confidence": round(self.confidence, 4),
            "reason": self.reason,
            "criteria": [c.to_dict() for c in self.criteria],
        }


class DimensionScorer(Protocol):
    """Scores one dimension of a trajectory."""

    @property
    def dimension(self) -> TrajectoryDimension: ...

    def score(self, trajectory: Trajectory) -> DimensionScore: ...


@dataclass(frozen=True, slots=True)
class TrajectoryScore:
    """The dimension scores of one trajectory, in scorer order."""

    dimensions: Mapping[TrajectoryDimension, DimensionScore]

    @property
    def aggregate(self) -> float:
        """Confidence-weighted mean of the dimension scores (0.0 when no weight at all)."""
        weight = sum(d.confidence for d in self.dimensions.values())
        if weight <= 0:
            return 0.0
        return sum(d.score * d.confidence for d in self.dimensions.values()) / weight

    def to_dict(self) -> dict[str, Any]:
        return {name.value: d.to_dict() for name, d in self.dimensions.items()}


def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


__all__ = [
    "Criterion",
    "DimensionScore",
    "DimensionScorer",
    "TrajectoryDimension",
    "TrajectoryScore",
    "clamp",
]
