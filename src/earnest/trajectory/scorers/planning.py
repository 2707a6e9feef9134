"""Planning: did the agent plan, look before it changed things, and work in steps?

Three criteria, each judged only when the trajectory engages it:

- ``explicit_plan``: a plan or to-do tool was used (``TodoWrite``, ``update_plan``,
  ``write_todos``, ``ExitPlanMode``, ... — the registry's ``todo``/``plan`` kinds);
- ``looked_before_changing``: when the agent changed files, a read, search, listing or
  sub-agent call came before its first change;
- ``multi_step``: tool calls spread over more than one assistant turn.

Score: the share of engaged criteria met. A deterministic reading of planning is weak, so
confidence stays moderate: 0.3 plus 0.1 per engaged criterion. No tool calls: 0.5 with
confidence 0.2 (not engaged).

Example:
    >>> from earnest.trajectory.model import ToolCall, Trajectory
    >>> t = Trajectory("t", "t.jsonl", "earnest", tool_calls=(
    ...     ToolCall("1", "Read", {}, "success", turn_index=0),
    ...     ToolCall("2", "Edit", {}, "success", turn_index=1)))
    >>> PlanningScorer().score(t).score
    0.6666666666666666
"""

from __future__ import annotations

from dataclasses import dataclass

from earnest.effects import DEFAULT_REGISTRY, ToolRegistry, observe_tool_result
from earnest.trajectory.model import ToolCall, Trajectory
from earnest.trajectory.scorers.base import Criterion, DimensionScore, TrajectoryDimension

_PLAN_KINDS = frozenset({"todo", "plan"})
_CHANGE_KINDS = frozenset({"write", "edit", "delete", "move", "patch"})
_LOOK_KINDS = frozenset({"read", "list", "search", "web", "task"})


@dataclass(frozen=True)
class PlanningScorer:
    """Scores :attr:`TrajectoryDimension.PLANNING`."""

    registry: ToolRegistry = DEFAULT_REGISTRY

    @property
    def dimension(self) -> TrajectoryDimension:
        return TrajectoryDimension.PLANNING

    def score(self, trajectory: Trajectory) -> DimensionScore:
        calls = trajectory.tool_calls
        if not calls:
            none = tuple(
                Criterion(n, None, "no tool calls")
                for n in ("explicit_plan", "looked_before_changing", "multi_step")
            )
            return DimensionScore(0.5, 0.2, "no tool calls (dimension not engaged)", none)
        kinds = [self._kind(c) for c in calls]
        plans = [c.name for c, k in zip(calls, kinds, strict=True) if k in _PLAN_KINDS]
        first_change = next((i for i, k in enumerate(kinds) if k in _CHANGE_KINDS), None)
        first_look = next((i for i, k in enumerate(kinds) if k in _LOOK_KINDS), None)
        turns = len({c.turn_index for c in calls})
        criteria = [
            Criterion(
                "explicit_plan",
                bool(plans),
                f"{len(plans)} plan/to-do call(s) ({plans[0]})" if plans else "no plan or to-do tool used",
            ),
        ]  # fmt: skip
        if first_change is None:
            criteria.append(Criterion("looked_before_changing", None, "no file changes"))
        else:
            looked = first_look is not None and first_look < first_change
            criteria.append(
                Criterion(
                    "looked_before_changing",
                    looked,
                    f"{calls[first_look].name} before the first change ({calls[first_change].name})"
                    if looked and first_look is not None
                    else f"the first change ({calls[first_change].name}) came before any read or search",
                )
            )  # fmt: skip
        criteria.append(
            Criterion("multi_step", turns > 1, f"tool calls over {turns} assistant turn(s)")
        )
        engaged = [c for c in criteria if c.met is not None]
        met = [c for c in engaged if c.met]
        score = len(met) / len(engaged)
        reason = f"{len(met)}/{len(engaged)} planning criteria met: " + ", ".join(
            f"{c.name} {'yes' if c.met else 'no'}" for c in engaged
        )
        return DimensionScore(score, 0.3 + 0.1 * len(engaged), reason, tuple(criteria))

    def _kind(self, call: ToolCall) -> str | None:
        kind = self.registry.kind_of(call.name)
        if kind == "editor":
            # The editor's command decides (view reads, create writes): the effects judgement.
            kind = observe_tool_result(
                {"tool_name": call.name, "args": dict(call.arguments)}, self.registry
            ).kind
        return kind


__all__ = ["PlanningScorer"]
