"""Effect grounding: did the run's tool calls change something or verify something?

The classification is :mod:`earnest.effects`' (the gate's own ledger, one implementation),
and file edits the source itself records (on calls that succeeded) count as effects too.
The scores are the ADR-010 reference scorer's:

========================================  =====  ==========  ===================================
what the trajectory shows                 score  confidence  reason starts
========================================  =====  ==========  ===================================
an effect (a workspace delta or a check)  1.0    0.9         ``effects:``
successful calls, none with an effect     0.7    0.6         ``read-grounded:``
calls attempted, none succeeded           0.0    0.8         ``completion-without-effect:``
no tool calls at all                      0.5    0.2         ``no tool calls``
========================================  =====  ==========  ===================================

Not in :func:`~earnest.trajectory.scorers.default_scorers`: existing aggregates must not shift
when it arrives (ADR-010); ask for it by name.

Example:
    >>> from earnest.trajectory.model import ToolCall, Trajectory
    >>> t = Trajectory("t", "t.jsonl", "earnest", tool_calls=(
    ...     ToolCall("1", "Bash", {"command": "pytest -q"}, "success"),))
    >>> EffectGroundingScorer().score(t).score
    1.0
"""

from __future__ import annotations

from dataclasses import dataclass

from earnest.effects import DEFAULT_REGISTRY, EffectClass, EffectLedger, ToolRegistry
from earnest.trajectory.model import Trajectory
from earnest.trajectory.scorers.base import Criterion, DimensionScore, TrajectoryDimension

EFFECT_SCORE, READ_GROUNDED_SCORE, NO_SUCCESS_SCORE, NO_CALLS_SCORE = 1.0, 0.7, 0.0, 0.5


@dataclass(frozen=True)
class EffectGroundingScorer:
    """Scores :attr:`TrajectoryDimension.EFFECT_GROUNDING` with the gate's ledger."""

    registry: ToolRegistry = DEFAULT_REGISTRY

    @property
    def dimension(self) -> TrajectoryDimension:
        return TrajectoryDimension.EFFECT_GROUNDING

    def score(self, trajectory: Trajectory) -> DimensionScore:
        ledger = EffectLedger(self.registry)
        ledger.record(trajectory.tool_results())
        outcome = {c.id: c.outcome for c in trajectory.tool_calls}
        recorded = [
            e for e in trajectory.file_edits if outcome.get(e.tool_call_id, "success") == "success"
        ]
        checks = len(ledger.checks)
        deltas = sum(1 for e in ledger.evidence if e.effect_class is EffectClass.WORKSPACE_DELTA)
        attempted, succeeded = ledger.attempted, ledger.succeeded
        effect = bool(ledger.evidence) or bool(recorded)
        criteria = (
            Criterion("tool_calls_made", attempted > 0, f"{attempted} tool call(s)"),
            Criterion(
                "a_call_succeeded",
                succeeded > 0 if attempted else None,
                f"{succeeded} of {attempted} succeeded",
            ),
            Criterion(
                "effect_observed",
                effect if attempted or recorded else None,
                _effects_text(checks, deltas, len(recorded), ledger.checks[-1].command if checks else None),
            ),
            Criterion(
                "source_file_edits",
                bool(recorded) if trajectory.file_edits else None,
                f"{len(recorded)} file edit(s) recorded by the source on successful calls"
                + (
                    f" ({len(trajectory.file_edits) - len(recorded)} on calls that failed or "
                    "have no result, not counted)"
                    if len(trajectory.file_edits) > len(recorded)
                    else ""
                ),
            ),
        )  # fmt: skip
        if effect:
            text = _effects_text(
                checks, deltas, len(recorded), ledger.checks[-1].command if checks else None
            )
            return DimensionScore(EFFECT_SCORE, 0.9, f"effects: {text}", criteria)
        if succeeded:
            basis = (
                f"{len(ledger.reads)} read/search/feedback call(s)"
                if ledger.reads
                else "bookkeeping calls only"
            )
            return DimensionScore(
                READ_GROUNDED_SCORE, 0.6,
                f"read-grounded: {succeeded} successful call(s), none changed the workspace or ran a check ({basis})",
                criteria,
            )  # fmt: skip
        if attempted:
            return DimensionScore(
                NO_SUCCESS_SCORE, 0.8,
                f"completion-without-effect: {attempted} tool call(s) attempted, none succeeded",
                criteria,
            )  # fmt: skip
        return DimensionScore(
            NO_CALLS_SCORE, 0.2, "no tool calls (dimension not engaged)", criteria
        )


def _effects_text(checks: int, deltas: int, edits: int, last_check: str | None) -> str:
    parts = []
    if checks:
        parts.append(f"{checks} check(s)" + (f", last `{_clip(last_check)}`" if last_check else ""))
    if deltas:
        parts.append(f"{deltas} workspace change(s)")
    if edits:
        parts.append(f"{edits} file edit(s) recorded")
    return "; ".join(parts) if parts else "none"


def _clip(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["EffectGroundingScorer"]
