"""Cursor hook events as earnest's Cursor hook records them: one run told by Cursor's own hooks.

Cursor does not document its transcript files, but it documents the JSON its hooks receive.
``earnest hook cursor`` is installed on ``beforeSubmitPrompt``, ``afterFileEdit``,
``afterShellExecution``, ``afterMCPExecution`` and ``afterAgentResponse`` as well as ``stop``,
and appends each payload to a log of its own, one line ``{"earnest_cursor_event": 1,
"received": ISO-8601, "payload": {...}}`` (secrets redacted), which this module reads:

- ``beforeSubmitPrompt`` ``{prompt}``: the user's prompt (a stop hook's follow-up, submitted
  as the next prompt, is told apart by :func:`earnest.trajectory.text.user_text_kind`);
- ``afterFileEdit`` ``{file_path, edits: [{old_string, new_string}]}``: an edit of that file
  (recorded as the tool ``Edit``, whose effect the shared registry knows);
- ``afterShellExecution`` ``{command, output, duration}``: a shell command and its output
  (``Bash``; Cursor gives no exit status, so its outcome is not known);
- ``afterMCPExecution`` ``{tool_name, tool_input, result_json}``: an MCP tool call;
- ``afterAgentResponse`` ``{text}``: the agent's message.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
    >>> events = [{"hook_event_name": "beforeSubmitPrompt", "prompt": "fix a.py"},
    ...           {"hook_event_name": "afterFileEdit", "file_path": "/w/a.py",
    ...            "edits": [{"old_string": "1", "new_string": "2"}]},
    ...           {"hook_event_name": "afterAgentResponse", "text": "Fixed a.py."}]
    >>> _ = p.write_text("".join(json.dumps({"earnest_cursor_event": 1, "payload":
    ...     dict(e, conversation_id="c1")}) + "\\n" for e in events))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, [(e.path, e.kind) for e in t.file_edits], t.final_message
    ('fix a.py', [('/w/a.py', 'modify')], 'Fixed a.py.')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, parse_arguments, user_text_kind

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "cursor-hook-events"
MARK = "earnest_cursor_event"
IGNORED = frozenset({"stop", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"})


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per log (one Cursor conversation)."""
    name = str(path)
    builder: TrajectoryBuilder | None = None
    turns = 0
    for number, record in iter_json_lines(path, report):
        payload = record.get("payload")
        if record.get(MARK) != 1 or not isinstance(payload, dict):
            report.skip(name, number, "not an earnest record of a Cursor hook event")
            continue
        if builder is None:
            conversation = as_str(payload.get("conversation_id"))
            builder = TrajectoryBuilder(
                id=conversation or path.stem, source=name, format=FORMAT, **options
            )
            if conversation:
                builder.metadata["session_id"] = conversation
            version = as_str(payload.get("cursor_version"))
            if version:
                builder.metadata["cli_version"] = version
        stamp = as_str(record.get("received"))
        event = payload.get("hook_event_name")
        if event == "beforeSubmitPrompt":
            text = as_str(payload.get("prompt")) or ""
            if text.strip():
                builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        elif event == "afterFileEdit":
            turns += _edit(builder, payload)
        elif event == "afterShellExecution":
            turns += 1
            builder.new_turn()
            call = builder.tool_call(None, "Bash", {"command": as_str(payload.get("command"))})
            builder.tool_result(call, is_error=None, output=content_text(payload.get("output")))
        elif event == "afterMCPExecution":
            turns += 1
            builder.new_turn()
            tool = as_str(payload.get("tool_name")) or "unknown"
            args = parse_arguments(payload.get("tool_input"))
            call = builder.tool_call(None, f"mcp__cursor__{tool}", args)
            builder.tool_result(
                call, is_error=None, output=content_text(payload.get("result_json"))
            )
        elif event == "afterAgentResponse":
            text = as_str(payload.get("text")) or ""
            if text.strip():
                turns += 1
                builder.new_turn()
                builder.message("assistant", text, timestamp=stamp)
        elif event not in IGNORED:
            report.skip(name, number, f"a Cursor hook event this reader does not use ({event!r})")
    if builder is None:
        return
    builder.metadata["assistant_turns"] = turns
    yield builder.build()


def _edit(builder: TrajectoryBuilder, payload: dict[str, Any]) -> int:
    path = as_str(payload.get("file_path"))
    if not path:
        return 0
    builder.new_turn()
    edits = payload.get("edits")
    first = edits[0] if isinstance(edits, list) and edits and isinstance(edits[0], dict) else {}
    args = {
        "file_path": path,
        "old_string": as_str(first.get("old_string")) or "",
        "new_string": as_str(first.get("new_string")) or "",
    }
    call = builder.tool_call(None, "Edit", args, edits=structured_edits("Edit", args))
    builder.tool_result(call, is_error=False, output=f"Cursor edited {path}")
    return 1


__all__ = ["FORMAT", "MARK", "read"]
