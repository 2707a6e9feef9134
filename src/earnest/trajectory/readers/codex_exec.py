"""Codex CLI ``codex exec --json`` event logs.

``thread.started``, ``turn.started``, ``item.started|updated|completed`` and
``turn.completed`` / ``turn.failed`` / ``error``. Items: ``agent_message`` (text),
``reasoning`` (skipped), ``command_execution`` (``command``, ``aggregated_output``,
``exit_code``, ``status``), ``file_change`` (``changes: [{path, kind: add|update|delete}]``,
``status``), ``mcp_tool_call``, ``web_search``, ``todo_list``, ``error``. Older releases
name the item kind ``item_type``. Calls are named as the model names them in Codex
rollouts, so one tool registry serves both: a command is ``shell`` (``{"command": ...}``),
a file change is ``apply_patch`` whose ``input`` is a path-only patch envelope
(``*** Update File: a.py``), MCP calls are ``mcp__<server>__<tool>``.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
    >>> ev = [{"type": "thread.started", "thread_id": "th"}, {"type": "turn.started"},
    ...       {"type": "item.completed", "item": {"id": "i1", "type": "command_execution",
    ...        "command": "pytest", "aggregated_output": "1 passed", "exit_code": 0,
    ...        "status": "completed"}},
    ...       {"type": "item.completed", "item": {"id": "i2", "type": "agent_message",
    ...        "text": "Tests pass."}},
    ...       {"type": "turn.completed", "usage": {"input_tokens": 1}}]
    >>> _ = p.write_text("".join(json.dumps(e) + "\\n" for e in ev))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.tool_calls[0].name, t.tool_calls[0].exit_code, t.final_message, t.termination.reason
    ('shell', 0, 'Tests pass.', 'normal')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import EditKind, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, limit_reason, parse_arguments

FORMAT = "codex-exec"

_KINDS: dict[str, EditKind] = {"add": "create", "update": "modify", "delete": "delete"}


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per event log (a thread)."""
    builder = TrajectoryBuilder(id=path.stem, source=str(path), format=FORMAT, **options)
    name = str(path)
    ended = False
    for number, event in iter_json_lines(path, report):
        kind = event.get("type")
        if kind == "thread.started":
            tid = event.get("thread_id")
            if isinstance(tid, str):
                builder.id = tid
                builder.metadata["thread_id"] = tid
        elif kind == "turn.started":
            builder.new_turn()
            ended = False
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = event.get("item")
            if isinstance(item, dict):
                _item(builder, item, completed=kind == "item.completed", report=report,
                      name=name, number=number)  # fmt: skip
            else:
                report.skip(name, number, f"{kind} without an item")
        elif kind == "turn.completed":
            ended = True
            builder.terminate("normal")
            usage = event.get("usage")
            if isinstance(usage, dict):
                builder.metadata["usage"] = {
                    k: v for k, v in usage.items() if isinstance(v, int | float)
                }
        elif kind in ("turn.failed", "error"):
            ended = True
            err = event.get("error")
            detail = err.get("message") if isinstance(err, dict) else event.get("message")
            detail = str(detail or kind)
            builder.terminate(limit_reason(detail), detail)
        else:
            report.skip(name, number, f"unknown event type {kind!r}")
    if not ended:
        builder.terminate("truncated", "the log ended before turn.completed")
    yield builder.build()


def _item(
    builder: TrajectoryBuilder,
    item: dict[str, Any],
    *,
    completed: bool,
    report: ReadReport,
    name: str,
    number: int,
) -> None:
    kind = item.get("type") or item.get("item_type")
    item_id = as_str(item.get("id"))
    status = item.get("status")
    if kind == "agent_message":
        if completed:
            builder.message("assistant", content_text(item.get("text")))
        return
    if kind in ("reasoning", "todo_list"):
        return
    if kind == "error":
        if completed:
            builder.signal("api_error", content_text(item.get("message")))
        return
    if kind == "command_execution":
        call_id = builder.tool_call(item_id, "shell", {"command": item.get("command")})
        if completed or status in ("completed", "failed", "declined"):
            code = item.get("exit_code")
            failed = status in ("failed", "declined") or (isinstance(code, int) and code != 0)
            builder.tool_result(
                call_id,
                is_error=failed,
                output=content_text(item.get("aggregated_output")),
                exit_code=code if isinstance(code, int) else None,
                error=f"status {status}" if failed and not isinstance(code, int) else None,
            )
    elif kind == "file_change":
        changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
        edits = [
            (str(c.get("path")), _KINDS.get(str(c.get("kind")), "modify"))
            for c in changes
            if c.get("path")
        ]
        args = {"input": _envelope(edits), "changes": changes}
        call_id = builder.tool_call(item_id, "apply_patch", args, edits=edits)
        if completed or status in ("completed", "failed"):
            builder.tool_result(call_id, is_error=status == "failed", output=str(status or ""))
    elif kind == "mcp_tool_call":
        tool = f"mcp__{item.get('server')}__{item.get('tool')}"
        call_id = builder.tool_call(item_id, tool, parse_arguments(item.get("arguments")))
        if completed or status in ("completed", "failed"):
            error = item.get("error")
            message = content_text(error.get("message")) if isinstance(error, dict) else None
            result = item.get("result")
            output = content_text(result.get("content")) if isinstance(result, dict) else ""
            builder.tool_result(
                call_id, is_error=status == "failed" or bool(error), output=output or (message or ""),
                error=message,
            )  # fmt: skip
    elif kind == "web_search":
        call_id = builder.tool_call(item_id, "web_search", {"query": item.get("query")})
        if completed:
            builder.tool_result(call_id, is_error=False, output="")
    else:
        report.unknown(name, number, f"item type {kind!r}")


_ENVELOPE = {"create": "Add", "modify": "Update", "delete": "Delete"}


def _envelope(edits: list[tuple[str, EditKind]]) -> str:
    """A path-only apply_patch envelope naming the changed files."""
    body = "".join(f"*** {_ENVELOPE[kind]} File: {path}\n" for path, kind in edits)
    return f"*** Begin Patch\n{body}*** End Patch"


__all__ = ["FORMAT", "read"]
