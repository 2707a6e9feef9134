"""ATIF: Harbor / Terminal-Bench's Agent Trajectory Interchange Format (``ATIF-v1.x``).

``{schema_version, session_id, agent: {name, version, model_name}, steps: [{step_id,
source: user|agent|system, message, reasoning_content?, tool_calls?: [{tool_call_id,
function_name, arguments}], observation?: {results: [{source_call_id, content}]}}],
final_metrics?, subagent_trajectories?}``. ATIF records no error flag on observations: a
call with a recorded observation is ``success``, one without is ``unknown``. Subagent
trajectories are read as sidechains of the parent.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "trajectory.json"
    >>> _ = p.write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s",
    ...     "agent": {"name": "a"}, "steps": [
    ...     {"step_id": 1, "source": "user", "message": "make a.txt"},
    ...     {"step_id": 2, "source": "agent", "message": "Writing.", "tool_calls": [
    ...      {"tool_call_id": "c1", "function_name": "bash",
    ...       "arguments": {"command": "touch a.txt"}}],
    ...      "observation": {"results": [{"source_call_id": "c1", "content": ""}]}},
    ...     {"step_id": 3, "source": "agent", "message": "Done."}]}))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.tool_calls[0].outcome, t.final_message, t.termination.reason
    ('success', 'Done.', 'normal')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, parse_arguments, user_text_kind

FORMAT = "atif"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per ATIF document (subagent trajectories folded in as sidechains)."""
    data = load_document(path, report)
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        if data is not None:
            report.warn(str(path), None, "no 'steps' list in ATIF trajectory")
        return
    builder = TrajectoryBuilder(
        id=str(data.get("session_id") or data.get("trajectory_id") or path.stem),
        source=str(path),
        format=FORMAT,
        **options,
    )
    agent = data.get("agent")
    if isinstance(agent, dict):
        builder.metadata["agent"] = {
            k: v for k, v in agent.items() if isinstance(v, str | int | float)
        }
    if isinstance(data.get("schema_version"), str):
        builder.metadata["schema_version"] = data["schema_version"]
    _steps(builder, data["steps"], report, str(path), sidechain=False)
    for sub in data.get("subagent_trajectories") or []:
        if isinstance(sub, dict) and isinstance(sub.get("steps"), list):
            _steps(builder, sub["steps"], report, str(path), sidechain=True)
    yield builder.build()


def _steps(
    builder: TrajectoryBuilder, steps: list[Any], report: ReadReport, name: str, *, sidechain: bool
) -> None:
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            report.skip(name, None, f"step {number} is not an object")
            continue
        source = step.get("source")
        text = content_text(step.get("message"))
        stamp = as_str(step.get("timestamp"))
        if source == "user":
            builder.message(
                "user",
                text,
                kind=user_text_kind(text),
                sidechain=sidechain,
                timestamp=stamp,
            )
        elif source == "agent":
            builder.new_turn()
            if text.strip():
                builder.message("assistant", text, sidechain=sidechain, timestamp=stamp)
            for call in step.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                tool = str(call.get("function_name") or "unknown")
                args = parse_arguments(call.get("arguments"))
                builder.tool_call(
                    call.get("tool_call_id"), tool, args, sidechain=sidechain,
                    edits=structured_edits(tool, args),
                )  # fmt: skip
        elif source == "system":
            builder.message("system", text, kind="system", sidechain=sidechain, timestamp=stamp)
        else:
            report.skip(name, None, f"step {number}: unknown source {source!r}")
            continue
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for result in results or []:
            if not isinstance(result, dict):
                continue
            call_id = result.get("source_call_id")
            if isinstance(call_id, str):
                builder.tool_result(
                    call_id, is_error=False, output=content_text(result.get("content"))
                )


__all__ = ["FORMAT", "read"]
