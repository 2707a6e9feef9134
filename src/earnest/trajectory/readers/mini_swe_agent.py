"""mini-swe-agent ``.traj.json`` trajectories (``trajectory_format: mini-swe-agent-1.x``).

OpenAI-style ``messages`` (tool results carry ``extra.returncode``), a final ``role:
"exit"`` message whose content is the submitted patch, and ``info.exit_status``
(``Submitted`` is a normal end; ``LimitsExceeded`` a step or cost limit).

Example:
    >>> termination_for("Submitted").reason, termination_for("LimitsExceeded").reason
    ('normal', 'max_turns')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Termination, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.openai_chat import feed_messages
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_dict, limit_reason

FORMAT = "mini-swe-agent"


def termination_for(status: str) -> Termination:
    """Map ``info.exit_status`` to a termination."""
    lowered = status.lower()
    if lowered == "submitted":
        return Termination("normal", status)
    if "limit" in lowered:
        return Termination("max_turns", status)
    if "cost" in lowered or "budget" in lowered:
        return Termination("usage_limit", status)
    if "interrupt" in lowered:
        return Termination("interrupted", status)
    return Termination(limit_reason(status), status)


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per ``.traj.json`` file."""
    data = load_document(path, report)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        if data is not None:
            report.warn(str(path), None, "no 'messages' list in mini-swe-agent trajectory")
        return
    builder = TrajectoryBuilder(
        id=str(data.get("instance_id") or path.name.removesuffix(".traj.json")),
        source=str(path),
        format=FORMAT,
        request_policy="first",
        **options,
    )
    feed_messages(builder, data["messages"], report, name=str(path), later_users_are_feedback=True)
    info = as_dict(data.get("info"))
    status = info.get("exit_status")
    if isinstance(status, str) and status:
        term = termination_for(status)
        builder.terminate(term.reason, term.detail)
    builder.metadata["exit_status"] = status
    if isinstance(data.get("trajectory_format"), str):
        builder.metadata["trajectory_format"] = data["trajectory_format"]
    stats = info.get("model_stats")
    if isinstance(stats, dict):
        builder.metadata["model_stats"] = {
            k: v for k, v in stats.items() if isinstance(v, int | float)
        }
    if isinstance(info.get("submission"), str):
        builder.metadata["has_submission"] = bool(info["submission"].strip())
    yield builder.build()


__all__ = ["FORMAT", "read", "termination_for"]
