"""Trajectories: agent runs read from real logs into one normalized model.

Readers for Claude Code (sessions, stream-json, headless json), Codex, Gemini CLI,
OpenHands, SWE-agent, mini-swe-agent, tau-bench, ATIF, OpenAI-style chat and others turn
a log into :class:`Trajectory` records that the effect gate and the trajectory scorers
consume. :func:`score_trajectory` scores one (:mod:`~earnest.trajectory.scorers`, one module
per :class:`TrajectoryDimension`) and decides its outcome — ``completion_without_effect``
among them — with a gate replay (:func:`replay_trajectory`); :class:`Battery` aggregates
many with intervals.

Example:
    >>> from earnest.trajectory import ToolCall
    >>> ToolCall(id="1", name="Edit", arguments={"file_path": "a.py"},
    ...          outcome="error").as_tool_result()["is_error"]
    True
"""

from __future__ import annotations

from earnest._lazy import lazy_getattr

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from earnest.trajectory.battery import OUTCOMES, Battery, TrajectoryResult, score_trajectory
    from earnest.trajectory.model import (
        SCHEMA,
        FileEdit,
        Message,
        Termination,
        ToolCall,
        Trajectory,
    )
    from earnest.trajectory.readers import (
        READERS,
        ClaudeCodeSession,
        detect_format,
        iter_paths,
        read_claude_code_from,
        read_claude_run,
        read_trajectories,
    )
    from earnest.trajectory.replay import (
        Claim,
        ReplayTally,
        RunReplay,
        TrajectoryReplay,
        replay_trajectory,
    )
    from earnest.trajectory.report import ReadReport, ReadWarning
    from earnest.trajectory.scorers import (
        Criterion,
        DimensionScore,
        DimensionScorer,
        EffectGroundingScorer,
        PlanningScorer,
        RecoveryScorer,
        RefusalScorer,
        ToolGroundingScorer,
        TrajectoryDimension,
        TrajectoryScore,
        all_scorers,
        default_scorers,
        score_dimensions,
        scorers_for,
    )

# Where each public name lives, imported on first use: the stop hook imports the Claude Code
# reader (which runs this file first) on every stop, and must not pay for the scorers.
_HOME = {
    "Battery": "battery",
    "OUTCOMES": "battery",
    "TrajectoryResult": "battery",
    "score_trajectory": "battery",
    "FileEdit": "model",
    "Message": "model",
    "SCHEMA": "model",
    "Termination": "model",
    "ToolCall": "model",
    "Trajectory": "model",
    "ClaudeCodeSession": "readers",
    "READERS": "readers",
    "detect_format": "readers",
    "iter_paths": "readers",
    "read_claude_code_from": "readers",
    "read_claude_run": "readers",
    "read_trajectories": "readers",
    "Claim": "replay",
    "ReplayTally": "replay",
    "RunReplay": "replay",
    "TrajectoryReplay": "replay",
    "replay_trajectory": "replay",
    "ReadReport": "report",
    "ReadWarning": "report",
    "Criterion": "scorers",
    "DimensionScore": "scorers",
    "DimensionScorer": "scorers",
    "EffectGroundingScorer": "scorers",
    "PlanningScorer": "scorers",
    "RecoveryScorer": "scorers",
    "RefusalScorer": "scorers",
    "ToolGroundingScorer": "scorers",
    "TrajectoryDimension": "scorers",
    "TrajectoryScore": "scorers",
    "all_scorers": "scorers",
    "default_scorers": "scorers",
    "score_dimensions": "scorers",
    "scorers_for": "scorers",
}


__getattr__ = lazy_getattr(__name__, _HOME, globals())


__all__ = [
    "OUTCOMES",
    "READERS",
    "SCHEMA",
    "Battery",
    "Claim",
    "ClaudeCodeSession",
    "Criterion",
    "DimensionScore",
    "DimensionScorer",
    "EffectGroundingScorer",
    "FileEdit",
    "Message",
    "PlanningScorer",
    "ReadReport",
    "ReadWarning",
    "RecoveryScorer",
    "RefusalScorer",
    "ReplayTally",
    "RunReplay",
    "Termination",
    "ToolCall",
    "ToolGroundingScorer",
    "Trajectory",
    "TrajectoryDimension",
    "TrajectoryReplay",
    "TrajectoryResult",
    "TrajectoryScore",
    "all_scorers",
    "default_scorers",
    "detect_format",
    "iter_paths",
    "read_claude_code_from",
    "read_claude_run",
    "read_trajectories",
    "replay_trajectory",
    "score_dimensions",
    "score_trajectory",
    "scorers_for",
]
