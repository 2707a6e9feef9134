"""Gemini CLI native chat logs (``~/.gemini/tmp/<project>/chats/session-*.json``).

``{sessionId, messages: [{type: user|gemini|info|error, content, toolCalls: [{id, name,
args, result: [{functionResponse: {response: {output|error}}}], status}]}]}``. Each
``gemini`` message is one turn; its tool calls carry their own results.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "session.json"
    >>> _ = p.write_text(json.dumps({"sessionId": "s", "messages": [
    ...     {"type": "user", "content": "ls"},
    ...     {"type": "gemini", "content": "", "toolCalls": [{"id": "c", "name":
    ...      "list_directory", "args": {}, "status": "success", "result": [
    ...      {"functionResponse": {"response": {"output": "a.py"}}}]}]},
    ...     {"type": "gemini", "content": "One file."}]}))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.tool_calls[0].outcome, t.final_message
    ('success', 'One file.')
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
from earnest.trajectory.text import (
    as_list,
    as_str,
    content_text,
    limit_reason,
    parse_arguments,
    user_text_kind,
)

FORMAT = "gemini-cli-session"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per chat log."""
    data = load_document(path, report)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        if data is not None:
            report.warn(str(path), None, "no 'messages' list in Gemini CLI session")
        return
    sid = data.get("sessionId")
    builder = TrajectoryBuilder(
        id=str(sid or path.stem), source=str(path), format=FORMAT, **options
    )
    if isinstance(sid, str):
        builder.metadata["session_id"] = sid
    for number, message in enumerate(data["messages"], 1):
        if not isinstance(message, dict):
            report.skip(str(path), None, f"message {number} is not an object")
            continue
        kind = message.get("type")
        text = content_text(message.get("content"))
        stamp = as_str(message.get("timestamp"))
        if kind == "user":
            builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        elif kind in ("gemini", "model", "assistant"):
            builder.new_turn()
            if text.strip():
                builder.message("assistant", text, timestamp=stamp)
            for call in as_list(message.get("toolCalls")):
                if isinstance(call, dict):
                    _call(builder, call)
        elif kind == "error":
            builder.signal(limit_reason(text), text)
        elif kind == "info":
            builder.message("system", text, kind="system", timestamp=stamp)
        else:
            report.skip(str(path), None, f"message {number}: unknown type {kind!r}")
    yield builder.build()


def _call(builder: TrajectoryBuilder, call: dict[str, Any]) -> None:
    name = str(call.get("name") or "unknown")
    args = parse_arguments(call.get("args"))
    call_id = builder.tool_call(
        as_str(call.get("id")),
        name,
        args,
        edits=structured_edits(name, args),
    )
    outputs: list[str] = []
    error: str | None = None
    for item in call.get("result") or []:
        response = (
            item.get("functionResponse", {}).get("response") if isinstance(item, dict) else None
        )
        if isinstance(response, dict):
            if response.get("error") is not None:
                error = content_text(response["error"])
                outputs.append(error)
            elif response.get("output") is not None:
                outputs.append(content_text(response["output"]))
    status = call.get("status")
    if status in ("success", "error", "cancelled"):
        builder.tool_result(
            call_id,
            is_error=status != "success",
            output="\n".join(outputs) or content_text(call.get("resultDisplay")),
            error=error or (f"status {status}" if status != "success" else None),
        )


__all__ = ["FORMAT", "read"]
