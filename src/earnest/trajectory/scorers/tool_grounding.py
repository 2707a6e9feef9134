"""Tool grounding: did the agent's tool calls work, and did it answer after seeing them?

Score: the share of tool calls that succeeded (a call with no recorded result did not);
confidence grows with the number of calls (``calls / 3``, between 0.3 and 1.0). Criteria:
every call succeeded; every call has a recorded result; the final answer came after the
last tool result (not before it, where it could not have used it). No calls: 0.5 with
confidence 0.2 — a direct answer is not penalised, and says little.

Example:
    >>> from earnest.trajectory.model import ToolCall, Trajectory
    >>> t = Trajectory("t", "t.jsonl", "earnest", tool_calls=(
    ...     ToolCall("1", "Read", {}, "success"), ToolCall("2", "Edit", {}, "error")))
    >>> ToolGroundingScorer().score(t).reason
    '1/2 tool calls succeeded (1 failed)'
"""

from __future__ import annotations

from dataclasses import dataclass

from earnest.trajectory.model import Trajectory
from earnest.trajectory.scorers.base import Criterion, DimensionScore, TrajectoryDimension, clamp


@dataclass(frozen=True)
class ToolGroundingScorer:
    """Scores :attr:`TrajectoryDimension.TOOL_GROUNDING`."""

    @property
    def dimension(self) -> TrajectoryDimension:
        return TrajectoryDimension.TOOL_GROUNDING

    def score(self, trajectory: Trajectory) -> DimensionScore:
        calls = trajectory.tool_calls
        total = len(calls)
        if total == 0:
            none = (
                Criterion("every_call_succeeded", None, "no tool calls"),
                Criterion("every_result_recorded", None, "no tool calls"),
                Criterion("answer_after_results", None, "no tool calls"),
            )
            return DimensionScore(0.5, 0.2, "no tool calls (dimension not engaged)", none)
        ok = sum(1 for c in calls if c.outcome == "success")
        failed = sum(1 for c in calls if c.outcome == "error")
        missing = total - ok - failed
        criteria = (
            Criterion("every_call_succeeded", ok == total, f"{ok}/{total} succeeded"),
            Criterion(
                "every_result_recorded",
                missing == 0,
                f"{missing} call(s) have no recorded result" if missing else "all recorded",
            ),
            _answer_after_results(trajectory),
        )
        extra = [f"{failed} failed"] if failed else []
        if missing:
            extra.append(f"{missing} without a result")
        reason = f"{ok}/{total} tool calls succeeded" + (f" ({', '.join(extra)})" if extra else "")
        return DimensionScore(ok / total, clamp(total / 3.0, 0.3, 1.0), reason, criteria)


def _answer_after_results(t: Trajectory) -> Criterion:
    name = "answer_after_results"
    if not t.final_message:
        return Criterion(name, None, "no final answer")
    main = [c for c in t.tool_calls if not c.is_sidechain and c.position is not None]
    final = next(
        (
            m
            for m in reversed(t.messages)
            if m.role == "assistant" and m.kind == "text" and m.text == t.final_message
        ),
        None,
    )
    if not main or final is None:
        return Criterion(name, None, "order of calls and answer unknown")
    last = max(c.position or 0 for c in main)
    after = final.index >= last
    detail = (
        "the final answer follows the last tool result"
        if after
        else ("the log ends with tool calls after the final answer")
    )
    return Criterion(name, after, detail)


__all__ = ["ToolGroundingScorer"]
