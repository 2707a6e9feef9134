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
