"""Trajectory scorers: one module per :class:`TrajectoryDimension`, all deterministic.

:func:`default_scorers` is planning, tool grounding, recovery and refusal. Effect grounding
is opt-in (ADR-010: existing aggregates must not shift when it arrives): ask for it with
:func:`scorers_for` (``["all"]`` or ``["effect_grounding", ...]``).

Example:
    >>> [s.dimension.value for s in default_scorers()]
    ['planning', 'tool_grounding', 'recovery', 'refusal']
    >>> [s.dimension.value for s in scorers_for(["all"])][-1]
    'effect_grounding'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from earnest.effects import DEFAULT_REGISTRY, ToolRegistry
from earnest.trajectory.model import Trajectory
from earnest.trajectory.scorers.base import (
    Criterion,
    DimensionScore,
    DimensionScorer,
    TrajectoryDimension,
    TrajectoryScore,
)
from earnest.trajectory.scorers.effect_grounding import EffectGroundingScorer
from earnest.trajectory.scorers.planning import PlanningScorer
from earnest.trajectory.scorers.recovery import RecoveryScorer
from earnest.trajectory.scorers.refusal import RefusalScorer
from earnest.trajectory.scorers.tool_grounding import ToolGroundingScorer


def default_scorers(registry: ToolRegistry = DEFAULT_REGISTRY) -> tuple[DimensionScorer, ...]:
    """Planning, tool grounding, recovery, refusal — effect grounding is left out on purpose."""
    return (
        PlanningScorer(registry),
        ToolGroundingScorer(),
        RecoveryScorer(registry),
        RefusalScorer(),
    )


def all_scorers(registry: ToolRegistry = DEFAULT_REGISTRY) -> tuple[DimensionScorer, ...]:
    """Every dimension, effect grounding last."""
    return (*default_scorers(registry), EffectGroundingScorer(registry))


def scorers_for(
    names: Iterable[str], registry: ToolRegistry = DEFAULT_REGISTRY
) -> tuple[DimensionScorer, ...]:
    """Scorers for dimension names (``all``, ``default`` or dimension names), in canonical
    order, without duplicates. Raises ``ValueError`` naming an unknown dimension."""
    wanted: set[TrajectoryDimension] = set()
    for raw in names:
        name = raw.strip().lower().replace("-", "_")
        if not name:
            continue
        if name == "all":
            wanted.update(TrajectoryDimension)
        elif name == "default":
            wanted.update(s.dimension for s in default_scorers(registry))
        else:
            try:
                wanted.add(TrajectoryDimension(name))
            except ValueError:
                known = ", ".join(["all", "default", *(d.value for d in TrajectoryDimension)])
                raise ValueError(f"unknown dimension {raw!r} (known: {known})") from None
    return tuple(s for s in all_scorers(registry) if s.dimension in wanted)


def score_dimensions(trajectory: Trajectory, scorers: Sequence[DimensionScorer]) -> TrajectoryScore:
    """Run each scorer on ``trajectory``; the result keeps the scorers' order."""
    return TrajectoryScore({s.dimension: s.score(trajectory) for s in scorers})


__all__ = [
    "Criterion",
    "DimensionScore",
    "DimensionScorer",
    "EffectGroundingScorer",
    "PlanningScorer",
    "RecoveryScorer",
    "RefusalScorer",
    "ToolGroundingScorer",
    "TrajectoryDimension",
    "TrajectoryScore",
    "all_scorers",
    "default_scorers",
    "score_dimensions",
    "scorers_for",
]
