"""Google Antigravity IDE trajectories: one step per line.

``{step_index, source: USER_EXPLICIT|SYSTEM|MODEL, type, status, content,
tool_calls?: [{name, args}]}``. A ``PLANNER_RESPONSE`` step holds the model's text and
tool calls; calls have no ids, and their results are the following non-planner MODEL
steps, in order. Argument values are JSON-encoded strings and are decoded.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "transcript.jsonl"
    >>> steps = [{"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT",
    ...           "status": "DONE", "content": "build it"},
    ...          {"step_index": 1, "source": "MODEL", "type": "PLANNER_RESPONSE",
    ...           "status": "DONE", "content": "Writing.", "tool_calls": [{"name":
    ...           "write_to_file", "args": {"TargetFile": "\\"/w/a.py\\""}}]},
    ...          {"step_index": 2, "source": "MODEL", "type": "CODE_ACTION",
    ...           "status": "DONE", "content": "ok"}]
    >>> _ = p.write_text("".join(json.dumps(s) + "\\n" for s in steps))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.file_edits[0].path, t.tool_calls[0].outcome
    ('/w/a.py', 'success')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_list, as_str, content_text

FORMAT = "antigravity"
_FAILED = frozenset({"ERROR", "FAILED", "CANCELED", "CANCELLED"})


def _decode(args: Any) -> dict[str, Any]:
    if not isinstance(args, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str):
            try:
                out[key] = safe_loads(value)
            except ValueError:
                out[key] = value
        else:
            out[key] = value
    return out


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per Antigravity transcript."""
    builder = TrajectoryBuilder(id=path.stem, source=str(path), format=FORMAT, **options)
    name = str(path)
    pending: list[str] = []
    for number, step in iter_json_lines(path, report):
        source, kind = step.get("source"), step.get("type")
        text = content_text(step.get("content"))
        stamp = as_str(step.get("created_at"))
        if source == "USER_EXPLICIT":
            builder.message("user", text, kind="prompt", timestamp=stamp)
        elif source == "SYSTEM":
            builder.message("system", text, kind="system", timestamp=stamp)
        elif kind == "PLANNER_RESPONSE":
            builder.new_turn()
            if text.strip():
                builder.message("assistant", text, timestamp=stamp)
            for k, call in enumerate(as_list(step.get("tool_calls"))):
                if not isinstance(call, dict):
                    continue
                tool = str(call.get("name") or "unknown")
                args = _decode(call.get("args"))
                call_id = builder.tool_call(
                    f"step-{step.get('step_index')}-{k}", tool, args,
                    edits=structured_edits(tool, args),
                )  # fmt: skip
                pending.append(call_id)
        elif source == "MODEL":
            if not pending:
                report.skip(name, number, f"{kind} step with no tool call to answer")
                continue
            status = str(step.get("status") or "")
            builder.tool_result(
                pending.pop(0),
                is_error=status.upper() in _FAILED,
                output=text,
            )
        else:
            report.skip(name, number, f"unknown step source {source!r}")
    yield builder.build()


__all__ = ["FORMAT", "read"]
