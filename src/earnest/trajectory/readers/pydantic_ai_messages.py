"""Pydantic AI's message history as JSON: ``result.all_messages_json()`` (``ModelMessagesTypeAdapter``).

A JSON array of messages, each ``{"kind": "request" | "response", "parts": [...]}``, every part
tagged by ``part_kind``. One file is one trajectory. Requests carry ``system-prompt``, ``user-prompt`` (the request), the
``tool-return`` of each call and ``retry-prompt`` parts; responses carry ``text``,
``tool-call`` (``tool_name``, ``args`` as a JSON string or an object, ``tool_call_id``) and
``thinking`` (not kept).

A ``tool-return`` whose ``outcome`` is not ``success`` (``failed``, ``retried``: the tool raised
``ModelRetry``; ``denied``, ``interrupted``: it did not run) is a failed call, and so is a
``retry-prompt`` naming a tool (its arguments did not validate). A ``retry-prompt`` naming no
tool is the feedback an output validator sent the model (earnest's own gate among them): a
feedback turn, not a new request. A response that was not completed (``state`` other than
``complete``) ends the run as interrupted. Anything malformed is a warning naming the place
(``messages[3].parts[0]``).

Example:
    >>> import json, tempfile, pathlib
    >>> messages = [
    ...   {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Make a.txt"}]},
    ...   {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "write_file",
    ...     "args": '{"path": "a.txt", "content": "x"}', "tool_call_id": "c1"}]},
    ...   {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "write_file",
    ...     "content": "wrote a.txt", "tool_call_id": "c1", "outcome": "success"}]},
    ...   {"kind": "response", "parts": [{"part_kind": "text", "content": "Done."}]}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "messages.json"
    >>> _ = p.write_text(json.dumps(messages))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, [(c.name, c.outcome) for c in t.tool_calls], t.final_message
    ('Make a.txt', [('write_file', 'success')], 'Done.')
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import parse_arguments, user_text_kind

FORMAT = "pydantic-ai-messages"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """The file's message history as one trajectory."""
    name = str(path)
    data = load_document(path, report)
    if isinstance(data, list):
        trajectory = _one(path, path.stem, data, report, "messages", options)
        if trajectory is not None:
            yield trajectory
    elif data is not None:
        report.warn(name, None, "not a Pydantic AI message history: expected a JSON array")


def _one(
    path: Path,
    id: str,
    history: list[Any],
    report: ReadReport,
    where: str,
    options: dict[str, Any],
) -> Trajectory | None:
    """The history's trajectory; None when no message in it could be read."""
    builder = TrajectoryBuilder(id=id, source=str(path), format=FORMAT, **options)
    name = str(path)
    for number, message in enumerate(history):
        place = f"{where}[{number}]"
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(parts, list):
            report.skip(name, None, f"{place}: not a message with a parts list")
            continue
        if message.get("kind") == "response":
            _response(builder, message, parts, report, name, place)
        elif message.get("kind") == "request":
            _request(builder, parts, report, name, place)
        else:
            report.skip(name, None, f"{place}.kind: expected request or response")
    if builder.empty:
        return None
    run_id = next((m.get("run_id") for m in history if isinstance(m, dict)), None)
    if isinstance(run_id, str):
        builder.metadata["run_id"] = run_id
    return builder.build()


def _request(
    builder: TrajectoryBuilder, parts: list[Any], report: ReadReport, name: str, place: str
) -> None:
    for k, part in enumerate(parts):
        kind = part.get("part_kind") if isinstance(part, dict) else None
        if not isinstance(part, dict):
            report.skip(name, None, f"{place}.parts[{k}]: not an object")
        elif kind == "system-prompt":
            builder.message("system", _text(part.get("content")), kind="system")
        elif kind == "user-prompt":
            text = _text(part.get("content"))
            builder.message("user", text, kind=user_text_kind(text))
        elif kind in ("tool-return", "builtin-tool-return"):
            call_id = part.get("tool_call_id")
            if not isinstance(call_id, str) or not builder.has_call(call_id):
                report.skip(name, None, f"{place}.parts[{k}]: a tool return with no call")
                continue
            failed = part.get("outcome", "success") != "success"
            builder.tool_result(call_id, is_error=failed, output=_text(part.get("content")))
        elif kind == "retry-prompt":
            text = _text(part.get("content"))
            call_id = part.get("tool_call_id")
            if part.get("tool_name") and isinstance(call_id, str) and builder.has_call(call_id):
                builder.tool_result(call_id, is_error=True, output=text)
            else:
                builder.message("user", text, kind="feedback")


def _response(
    builder: TrajectoryBuilder,
    message: dict[str, Any],
    parts: list[Any],
    report: ReadReport,
    name: str,
    place: str,
) -> None:
    builder.new_turn()
    model = message.get("model_name")
    if isinstance(model, str):
        builder.metadata.setdefault("model", model)
    texts: list[str] = []
    for k, part in enumerate(parts):
        kind = part.get("part_kind") if isinstance(part, dict) else None
        if not isinstance(part, dict):
            report.skip(name, None, f"{place}.parts[{k}]: not an object")
        elif kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind in ("tool-call", "builtin-tool-call"):
            tool = part.get("tool_name")
            if not isinstance(tool, str) or not tool:
                report.skip(name, None, f"{place}.parts[{k}].tool_name: missing")
                continue
            args = parse_arguments(part.get("args"))
            call_id = part.get("tool_call_id")
            builder.tool_call(call_id if isinstance(call_id, str) else None, tool, args,
                              edits=structured_edits(tool, args))  # fmt: skip
    text = "".join(texts)
    if text.strip():
        builder.message("assistant", text)
    state = message.get("state", "complete")
    if state != "complete":
        builder.terminate("interrupted", f"the model's response is {state}")


def _text(content: Any) -> str:
    """A part's content as text: a string, the strings of a multi-modal list, or JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(c, str) for c in content):
        return "\n".join(content)
    return json.dumps(content, ensure_ascii=False, default=str)


__all__ = ["FORMAT", "read"]
