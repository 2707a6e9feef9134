"""GitHub Copilot CLI session logs: ``~/.copilot/session-state/<sessionId>/events.jsonl``.

One event per line, ``{type, data, id, timestamp, parentId}`` (``$COPILOT_HOME`` moves
``~/.copilot``). What this reader takes from them:

- ``session.start``: ``data.sessionId``, ``data.copilotVersion``, ``data.context.cwd``;
- ``user.message``: ``data.content``, the user's text. A stop hook's block reason comes back
  as one too: a ``user.message`` whose text is the reason of the ``hook.end`` just before it
  (``data.output.decision == "block"``) continues the run and is no new prompt;
- ``assistant.message``: one model response: ``data.content`` (the text) and
  ``data.toolRequests[]`` ``{toolCallId, name, arguments}``;
- ``tool.execution_complete``: ``data.toolCallId``, ``data.success``, ``data.result.content``
  or ``data.error.message``, and for the ``bash`` tool ``data.shellExecution.exitCode`` (a
  command that exits non-zero is still ``success: true``: the exit status decides);
- ``hook.start``: ``data.input.timestamp``, the input the hook was given: the last one is
  kept as metadata (:data:`HOOK_STARTED`); a stop hook knows from it that the log holds
  everything up to its own call;
- ``abort`` and ``session.error``: the run was interrupted, or failed.

Every other event (turn boundaries, usage, hook start, model calls, the system prompt...)
is Copilot's own bookkeeping and is passed over deliberately, without a warning; a line that
is no event at all is skipped with one.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "events.jsonl"
    >>> _ = p.write_text("\\n".join(json.dumps({"id": str(i), "parentId": None,
    ...     "timestamp": "2026-01-01T00:00:00Z", **e}) for i, e in enumerate([
    ...     {"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0.102"}},
    ...     {"type": "user.message", "data": {"content": "ls"}},
    ...     {"type": "assistant.message", "data": {"content": "", "toolRequests": [
    ...         {"toolCallId": "c1", "name": "bash", "arguments": {"command": "ls"}}]}},
    ...     {"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": True,
    ...         "shellExecution": {"exitCode": 0}, "result": {"content": "a.py"}}},
    ...     {"type": "assistant.message", "data": {"content": "One file."}}])) + "\\n")
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, t.tool_calls[0].exit_code, t.final_message
    ('ls', 0, 'One file.')
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines, lines_backward, parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    as_dict,
    as_list,
    as_str,
    content_text,
    parse_arguments,
    user_text_kind,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "copilot-cli-events"
READ_TYPES = frozenset(
    {"session.start", "session.resume", "user.message", "assistant.message",
     "tool.execution_complete", "hook.start", "hook.end", "abort", "session.error"}
)  # fmt: skip
"""The event types this reader uses; every other one is bookkeeping."""

HOOK_STARTED = "last_hook_input_timestamp"
"""Metadata key: the input ``timestamp`` of the log's last ``hook.start`` event. The
``agentStop`` hook waits for its own (Copilot writes the log after calling the hook)."""

_TYPE_PREFIX = re.compile(rb'^\s*\{\s*"type"\s*:\s*"([^"\\]{1,80})"')
_SHELL_TRAILER = re.compile(r"\n?<shellId: [^>\n]{1,40} (?:completed|exited)[^>\n]{0,80}>\s*$")


def _passed_over(raw: bytes) -> bool:
    """A line whose leading ``"type"`` is no event this reader uses (the system prompt, usage
    records, deltas...): not parsed at all."""
    found = _TYPE_PREFIX.match(raw)
    return found is not None and found.group(1).decode("ascii", "replace") not in READ_TYPES


def run_start(path: Path) -> int:
    """The byte offset of the line that starts the log's current run — its last
    ``user.message`` that :func:`read` takes for a prompt (a real prompt, not a block reason
    coming back) — found by reading the file backwards; 0 when there is none. A stop hook
    reads from there (``read(path, report, start=...)``), the log's first line (its
    ``session.start``) besides.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "events.jsonl"
        >>> ev = [{"type": "session.start", "data": {"sessionId": "s"}},
        ...       {"type": "user.message", "data": {"content": "fix it"}},
        ...       {"type": "hook.end", "data": {"output": {"decision": "block", "reason": "R"}}},
        ...       {"type": "user.message", "data": {"content": "R"}}]
        >>> lines = [json.dumps(e) + "\\n" for e in ev]
        >>> _ = p.write_text("".join(lines))
        >>> run_start(p) == len(lines[0])
        True
    """
    report = ReadReport()
    candidate: tuple[int, str] | None = None
    with open(path, "rb") as handle:
        for offset, raw in lines_backward(handle, handle.seek(0, 2)):
            if not raw.endswith(b"\n") or _passed_over(raw):
                continue
            event = parse_line(raw, str(path), None, report)
            data = event.get("data") if event is not None else None
            if event is None or not isinstance(data, dict):
                continue
            kind = event.get("type")
            if kind == "user.message":
                if candidate is not None:
                    return candidate[0]  # no block between them: the later one is a prompt
                text = content_text(data.get("content")).strip()
                if text and user_text_kind(text) == "prompt":
                    candidate = (offset, text)
            elif kind == "hook.end" and candidate is not None:
                output = as_dict(data.get("output"))
                if (
                    output.get("decision") == "block"
                    and as_str(output.get("reason"))
                    and (str(output.get("reason")).strip() == candidate[1])
                ):
                    candidate = None  # that user.message was this block's reason coming back
    return candidate[0] if candidate is not None else 0


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per session log; ``start`` (a byte offset from :func:`run_start`)
    reads the log's first line (its ``session.start``) and then from there on."""
    name = str(path)
    start = int(options.pop("start", 0) or 0)
    builder = TrajectoryBuilder(
        id=path.parent.name or path.stem, source=name, format=FORMAT, **options
    )
    turns = 0
    block_reasons: list[str] = []  # a blocking stop hook's reason, until it comes back
    seen = False
    if start:
        with open(path, "rb") as handle:
            first = parse_line(handle.readline(1 << 20), name, 1, report)
        data = first.get("data") if first is not None else None
        if first is not None and first.get("type") == "session.start" and isinstance(data, dict):
            _session(builder, data)
        builder.metadata["run_offset"] = start
    for number, event in iter_json_lines(path, report, skip=_passed_over, start=start):
        kind = event.get("type")
        data = event.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            report.skip(name, number, "not a Copilot CLI event (no type and data)")
            continue
        seen = True
        stamp = as_str(event.get("timestamp"))
        if kind in ("session.start", "session.resume"):
            _session(builder, data)
        elif kind == "user.message":
            text = content_text(data.get("content"))
            if text.strip() in block_reasons:
                block_reasons.remove(text.strip())
                builder.message("user", text, kind="noise", timestamp=stamp)
            elif text.strip():
                builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        elif kind == "assistant.message":
            builder.new_turn()
            turns += 1
            _assistant(builder, data, stamp)
        elif kind == "tool.execution_complete":
            if not _result(builder, data):
                unknown = data.get("toolCallId")
                report.skip(name, number, f"tool result for an unknown call {unknown!r}")
        elif kind == "hook.start":
            stamp_in = as_dict(data.get("input")).get("timestamp")
            if isinstance(stamp_in, (int, str)) and not isinstance(stamp_in, bool):
                builder.metadata[HOOK_STARTED] = stamp_in
        elif kind == "hook.end":
            output = as_dict(data.get("output"))
            reason = as_str(output.get("reason"))
            if output.get("decision") == "block" and reason and reason.strip():
                block_reasons.append(reason.strip())
        elif kind == "abort":
            builder.signal("interrupted", content_text(data.get("reason")) or "aborted")
        elif kind == "session.error":
            builder.signal("api_error", content_text(data.get("message")) or "session error")
    if not seen:
        return
    builder.metadata["assistant_turns"] = turns
    yield builder.build()


def _session(builder: TrajectoryBuilder, data: dict[str, Any]) -> None:
    sid = as_str(data.get("sessionId"))
    if sid:
        builder.id = sid
        builder.metadata["session_id"] = sid
    version = as_str(data.get("copilotVersion"))
    if version:
        builder.metadata["cli_version"] = version
    cwd = as_str(as_dict(data.get("context")).get("cwd"))
    if cwd:
        builder.metadata["cwd"] = cwd


def _assistant(builder: TrajectoryBuilder, data: dict[str, Any], stamp: str | None) -> None:
    for request in as_list(data.get("toolRequests")):
        if not isinstance(request, dict):
            continue
        name = str(request.get("name") or "unknown")
        args = parse_arguments(request.get("arguments"))
        builder.tool_call(
            as_str(request.get("toolCallId")), name, args, edits=structured_edits(name, args)
        )
    text = content_text(data.get("content"))
    if text.strip():
        builder.message("assistant", text, timestamp=stamp)


def _result(builder: TrajectoryBuilder, data: dict[str, Any]) -> bool:
    call_id = as_str(data.get("toolCallId")) or ""
    if not builder.has_call(call_id):
        return False
    shell = as_dict(data.get("shellExecution"))
    code = shell.get("exitCode")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    output = content_text(as_dict(data.get("result")).get("content"))
    if exit_code is not None:
        output = _SHELL_TRAILER.sub("", output)
    error = content_text(as_dict(data.get("error")).get("message")) or None
    failed = data.get("success") is False or bool(exit_code)
    why = error or (f"exit code {exit_code}" if exit_code else "failed")
    return builder.tool_result(
        call_id,
        is_error=failed,
        output=output or (error or ""),
        exit_code=exit_code,
        error=why if failed else None,
    )


__all__ = ["FORMAT", "HOOK_STARTED", "READ_TYPES", "read", "run_start"]
