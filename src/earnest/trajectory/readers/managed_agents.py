"""Anthropic managed-agent (Agents API) session event logs.

Each line wraps one event: ``{role, kind, time, content?, tool?, raw: {type, ...}}``.
``raw.type`` ``user.message``/``user.define_outcome`` start the task,
``agent.message`` is text, ``agent.tool_use`` (``id, name, input``) is answered by
``agent.tool_result`` (``tool_use_id, content, is_error``), ``span.model_request_start``
starts a turn, ``session.status_idle`` with ``stop_reason.type == "end_turn"`` ends it
normally, and ``user.interrupt`` while running interrupts it.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "events.jsonl"
    >>> ev = [{"role": "user", "raw": {"type": "user.message", "content": [
    ...         {"type": "text", "text": "hi"}]}},
    ...       {"role": "agent", "raw": {"type": "agent.message", "content": [
    ...         {"type": "text", "text": "Hello."}]}},
    ...       {"role": "system", "raw": {"type": "session.status_idle",
    ...         "stop_reason": {"type": "end_turn"}}}]
    >>> _ = p.write_text("".join(json.dumps(e) + "\\n" for e in ev))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.final_message, t.termination.reason
    ('Hello.', 'normal')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_dict, content_text, limit_reason

FORMAT = "claude-managed-agents"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per session event log."""
    builder = TrajectoryBuilder(id=path.stem, source=str(path), format=FORMAT, **options)
    name = str(path)
    running = False
    for number, line in iter_json_lines(path, report):
        raw = line.get("raw")
        if not isinstance(raw, dict):
            report.skip(name, number, "event without a 'raw' object")
            continue
        kind = raw.get("type")
        if kind in ("user.message", "user.define_outcome"):
            text = content_text(raw.get("content")) or content_text(raw.get("description"))
            builder.clear_termination()
            builder.message("user", text, kind="prompt", timestamp=line.get("time"))
        elif kind == "span.model_request_start":
            builder.new_turn()
        elif kind == "agent.message":
            builder.message(
                "assistant", content_text(raw.get("content")), timestamp=line.get("time")
            )
        elif kind == "agent.tool_use":
            tool = str(raw.get("name") or line.get("tool") or "unknown")
            args = as_dict(raw.get("input"))
            builder.tool_call(raw.get("id"), tool, args, edits=structured_edits(tool, args))
        elif kind == "agent.tool_result":
            call_id = raw.get("tool_use_id")
            if not isinstance(call_id, str) or not builder.tool_result(
                call_id,
                is_error=bool(raw.get("is_error")),
                output=content_text(raw.get("content")) or content_text(line.get("content")),
            ):
                report.skip(name, number, "tool_result with no matching tool_use")
        elif kind in ("session.status_running", "session.thread_status_running"):
            running = True
            builder.clear_termination()
        elif kind == "session.status_idle":
            running = False
            stop = raw.get("stop_reason")
            stop_type = stop.get("type") if isinstance(stop, dict) else None
            if stop_type in (None, "end_turn"):
                builder.terminate("normal", "session idle (end_turn)")
            else:
                builder.terminate(limit_reason(str(stop_type)), str(stop_type))
        elif kind == "user.interrupt":
            if running:
                builder.terminate("interrupted", "user.interrupt")
        elif kind == "span.model_request_end" and raw.get("is_error"):
            builder.signal("api_error", "model request failed")
        elif kind == "span.outcome_evaluation_end":
            builder.metadata["outcome_evaluation"] = content_text(line.get("content"))[:500]
        elif kind == "session.error":
            detail = content_text(raw.get("error")) or "session error"
            builder.terminate(limit_reason(detail), detail)
    yield builder.build()


__all__ = ["FORMAT", "read"]
