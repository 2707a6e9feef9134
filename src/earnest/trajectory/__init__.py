"""Trajectories: agent runs read from real logs into one normalized model.

Readers for Claude Code (sessions, stream-json, headless json), Codex, Gemini CLI,
OpenHands, SWE-agent, mini-swe-agent, tau-bench, ATIF, OpenAI-style chat and others turn
a log into :class:`Trajectory` records that the effect gate and the trajectory scorers
consume.

Example:
    >>> from earnest.trajectory import ToolCall
    >>> ToolCall(id="1", name="Edit", arguments={"file_path": "a.py"},
    ...          outcome="error").as_tool_result()["is_error"]
    True
"""

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
from earnest.trajectory.report import ReadReport, ReadWarning

__all__ = [
    "READERS",
    "SCHEMA",
    "ClaudeCodeSession",
    "FileEdit",
    "Message",
    "ReadReport",
    "ReadWarning",
    "Termination",
    "ToolCall",
    "Trajectory",
    "detect_format",
    "iter_paths",
    "read_claude_code_from",
    "read_claude_run",
    "read_trajectories",
]
