"""Gemini CLI ``--output-format stream-json`` logs.

Events: ``init``, ``message`` (user, or assistant text streamed as ``delta`` chunks that
are joined back together), ``tool_use``/``tool_result`` (linked by ``tool_id``,
``status: success|error``) and a final ``result`` (``status: success|error``). Several
sessions may be appended to one file: each ``init`` after activity starts a new
trajectory, and user messages written just before an ``init`` belong to the session it
opens. A session without a ``result`` event was cut off (``truncated``).

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
    >>> ev = [{"type": "init", "session_id": "a"},
    ...       {"type": "message", "role": "user", "content": "hi"},
    ...       {"type": "message", "role": "assistant", "content": "Hel", "delta": True},
    ...       {"type": "message", "role": "assistant", "content": "lo", "delta": True},
    ...       {"type": "result", "status": "success"}]
    >>> _ = p.write_text("".join(json.dumps(e) + "\\n" for e in ev))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.final_message, t.termination.reason
    ('Hello', 'normal')
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
from earnest.trajectory.text import content_text, limit_reason, parse_arguments, user_text_kind

FORMAT = "gemini-cli-stream"


class _Session:
    def __init__(self, path: Path, number: int, options: dict[str, Any]) -> None:
        self.builder = TrajectoryBuilder(
            id=f"{path.stem}#{number}", source=str(path), format=FORMAT, **options
        )
        self.started = False
        self.active = False
        self.result = False
        self.text: list[str] = []
        self.text_ts: str | None = None
        self.in_turn = False

    def flush_text(self) -> None:
        if self.text:
            self.builder.message("assistant", "".join(self.text), timestamp=self.text_ts)
            self.text = []

    def turn(self) -> None:
        if not self.in_turn:
            self.builder.new_turn()
            self.in_turn = True

    def finish(self) -> Trajectory:
        self.flush_text()
        if not self.result:
            self.builder.terminate("truncated", "the stream ended without a result event")
        return self.builder.build()


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per session in the log."""
    count = 1
    session = _Session(path, count, options)
    waiting: list[dict[str, Any]] = []
    name = str(path)
    for number, event in iter_json_lines(path, report):
        kind = event.get("type")
        if kind == "message" and event.get("role") == "user":
            session.flush_text()
            waiting.append(event)
            continue
        if kind == "init":
            if session.active:
                yield session.finish()
                count += 1
                session = _Session(path, count, options)
            session.started = True
            sid = event.get("session_id")
            if isinstance(sid, str):
                session.builder.id = sid
                session.builder.metadata["session_id"] = sid
            if isinstance(event.get("model"), str):
                session.builder.metadata["model"] = event["model"]
        for prompt in waiting:
            text = content_text(prompt.get("content"))
            session.builder.message(
                "user",
                text,
                kind=user_text_kind(text),
                timestamp=prompt.get("timestamp"),
            )
            session.in_turn = False
            session.active = True
        waiting = []
        if kind == "init":
            continue
        session.active = True
        if kind == "message":
            session.turn()
            if not session.text:
                session.text_ts = event.get("timestamp")
            session.text.append(content_text(event.get("content")))
        elif kind == "tool_use":
            session.flush_text()
            session.turn()
            tool = str(event.get("tool_name") or "unknown")
            args = parse_arguments(event.get("parameters"))
            session.builder.tool_call(
                event.get("tool_id"), tool, args, edits=structured_edits(tool, args)
            )
        elif kind == "tool_result":
            session.flush_text()
            session.in_turn = False
            status = event.get("status")
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            output = content_text(event.get("output")) or (message or "")
            found = session.builder.tool_result(
                str(event.get("tool_id")),
                is_error=None if status not in ("success", "error") else status == "error",
                output=output,
                error=message if isinstance(message, str) else None,
            )
            if not found:
                report.skip(name, number, "tool_result with no matching tool_use")
        elif kind == "result":
            session.flush_text()
            session.result = True
            stats = event.get("stats")
            if isinstance(stats, dict):
                session.builder.metadata["stats"] = {
                    k: v for k, v in stats.items() if isinstance(v, int | float)
                }
            if event.get("status") == "success":
                session.builder.terminate("normal")
            else:
                err = event.get("error")
                detail = err.get("message") if isinstance(err, dict) else str(err or "error")
                detail = str(detail)
                session.builder.terminate(limit_reason(detail), detail)
        else:
            report.skip(name, number, f"unknown event type {kind!r}")
    for prompt in waiting:
        text = content_text(prompt.get("content"))
        session.builder.message("user", text, kind=user_text_kind(text))
        session.active = True
    if session.active or session.started:
        yield session.finish()


__all__ = ["FORMAT", "read"]
