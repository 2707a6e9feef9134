"""Recovery: after a tool call failed, did the agent get the same kind of work done?

A failed call is **recovered** when a later call of the same canonical kind (from the
shared registry: an ``Edit`` after a failed ``Edit``, any shell command after a failed
one) succeeded. Failed bookkeeping calls (the registry's to-do, plan, question, submit and
no-op kinds) are not failures of the work and are left out. Each failure is judged as its own criterion (the first 20 are listed).
Score: the share recovered; confidence ``failures / 2`` between 0.4 and 1.0. No failures:
0.5 with confidence 0.2 (not engaged).

Example:
    >>> from earnest.trajectory.model import ToolCall, Trajectory
    >>> t = Trajectory("t", "t.jsonl", "earnest", tool_calls=(
    ...     ToolCall("1", "Edit", {}, "error"), ToolCall("2", "Edit", {}, "success")))
    >>> RecoveryScorer().score(t).reason
    'recovered 1/1 failed tool call(s)'
"""

from __future__ import annotations

from dataclasses import dataclass

from earnest.effects import DEFAULT_REGISTRY, ToolRegistry
from earnest.effects.registry import SILENT_KINDS
from earnest.trajectory.model import Trajectory
from earnest.trajectory.scorers.base import Criterion, DimensionScore, TrajectoryDimension, clamp

LISTED = 20
"""Failures listed one by one as criteria; the rest are counted in the reason."""


@dataclass(frozen=True)
class RecoveryScorer:
    """Scores :attr:`TrajectoryDimension.RECOVERY`."""

    registry: ToolRegistry = DEFAULT_REGISTRY

    @property
    def dimension(self) -> TrajectoryDimension:
        return TrajectoryDimension.RECOVERY

    def score(self, trajectory: Trajectory) -> DimensionScore:
        calls = trajectory.tool_calls
        kinds = [self.registry.kind_of(c.name) or c.name.lower() for c in calls]
        # The latest successful call of each kind, so each failure is judged in O(1).
        last_success: dict[str, int] = {}
        for i, c in enumerate(calls):
            if c.outcome == "success":
                last_success[kinds[i]] = i
        # A failed bookkeeping call (a to-do update, killing a shell that had already
        # finished) stops no work: nothing to recover from.
        failures = [
            i for i, c in enumerate(calls) if c.outcome == "error" and kinds[i] not in SILENT_KINDS
        ]
        if not failures:
            return DimensionScore(
                0.5, 0.2, "no failed tool calls (dimension not engaged)",
                (Criterion("failures_recovered", None, "no failed tool calls"),),
            )  # fmt: skip
        recovered = 0
        criteria: list[Criterion] = []
        for i in failures:
            later = last_success.get(kinds[i], -1)
            ok = later > i
            recovered += ok
            if len(criteria) < LISTED:
                c = calls[i]
                detail = (
                    f"a later {kinds[i]} call ({calls[later].name} {calls[later].id}) succeeded"
                    if ok
                    else f"no later successful {kinds[i]} call"
                )
                criteria.append(Criterion(f"recovered {c.name} {c.id}", ok, detail))
        n = len(failures)
        reason = f"recovered {recovered}/{n} failed tool call(s)"
        if n > LISTED:
            reason += f" (first {LISTED} listed)"
        return DimensionScore(recovered / n, clamp(n / 2.0, 0.4, 1.0), reason, tuple(criteria))


__all__ = ["RecoveryScorer"]
