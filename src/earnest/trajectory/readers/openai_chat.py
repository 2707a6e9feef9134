"""OpenAI-style chat messages: ``assistant.tool_calls`` answered by ``tool`` messages.

Accepted containers: a JSON array of messages, ``{"messages": [...]}``, JSONL with one
message per line (one trajectory), or JSONL with one ``{"messages": [...]}`` per line (one
trajectory each). :func:`feed_messages` is shared by the mini-swe-agent, SWE-agent and
tau-bench readers, which wrap the same messages. Tolerates SWE-agent's ``tool_call_ids``
list, the legacy ``function_call`` field, and tool messages with no id (matched to the
oldest unanswered call).

Example:
    >>> from earnest.trajectory.readers.builder import TrajectoryBuilder
    >>> from earnest.trajectory.report import ReadReport
    >>> b = TrajectoryBuilder(id="x", source="x.json", format=FORMAT)
    >>> feed_messages(b, [
    ...     {"role": "user", "content": "List files"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
    ...      "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
    ...     {"role": "assistant", "content": "There is a.py."}], ReadReport())
    >>> t = b.build()
    >>> [c.outcome for c in t.tool_calls], t.final_message
    (['success'], 'There is a.py.')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import MessageKind, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_dict, as_str, content_text, parse_arguments, user_text_kind

FORMAT = "openai-chat"

_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")

ResultJudge = Callable[[dict[str, Any], str], tuple[bool | None, int | None]]
"""Given a tool message and its text, decide ``(is_error, exit_code)``."""


def default_judge(message: dict[str, Any], text: str) -> tuple[bool | None, int | None]:
    """A result recorded with no error signal is a success; explicit flags and codes win."""
    extra = message.get("extra")
    code = extra.get("returncode") if isinstance(extra, dict) else None
    if not isinstance(code, int):
        match = _RETURNCODE.search(text[:200])
        code = int(match.group(1)) if match else None
    if isinstance(code, int):
        return code != 0, code
    if message.get("is_error") is True or message.get("error"):
        return True, None
    return False, None


def feed_messages(
    builder: TrajectoryBuilder,
    messages: list[Any],
    report: ReadReport,
    *,
    name: str = "",
    judge: ResultJudge = default_judge,
    later_users_are_feedback: bool = False,
    sidechain: bool = False,
    on_result: Callable[[str, str], None] | None = None,
) -> None:
    """Feed chat messages into ``builder``.

    ``later_users_are_feedback``: harness formats put observations and format errors in
    user turns after the task; only the first user message is a prompt there.
    ``on_result(call_id, text)`` lets a wrapping reader refine a result (e.g. edits).
    """
    seen_user = False
    for number, message in enumerate(messages, 1):
        if not isinstance(message, dict):
            report.skip(name, None, f"message {number} is not an object")
            continue
        role = message.get("role")
        text = content_text(message.get("content"))
        if role == "system" or role == "developer":
            builder.message("system", text, kind="system", sidechain=sidechain)
        elif role == "user":
            kind: MessageKind = user_text_kind(text)
            if later_users_are_feedback and seen_user and kind == "prompt":
                kind = "feedback"
            seen_user = seen_user or kind == "prompt"
            builder.message("user", text, kind=kind, sidechain=sidechain)
        elif role == "assistant":
            builder.new_turn()
            if text.strip():
                builder.message("assistant", text, sidechain=sidechain)
            for call in _calls(message):
                builder.tool_call(
                    call[0],
                    call[1],
                    call[2],
                    sidechain=sidechain,
                    edits=structured_edits(call[1], call[2]),
                )
        elif role in ("tool", "function"):
            ids = _result_ids(message, builder)
            if not ids:
                report.skip(name, None, f"message {number}: tool result with no call to match")
                continue
            is_error, code = judge(message, text)
            for call_id in ids:
                builder.tool_result(call_id, is_error=is_error, output=text, exit_code=code)
                if on_result is not None:
                    on_result(call_id, text)
        elif role == "exit":
            builder.metadata["exit_message"] = text[:2000]
        else:
            report.skip(name, None, f"message {number}: unknown role {role!r}")


def _calls(message: dict[str, Any]) -> list[tuple[str | None, str, dict[str, Any]]]:
    out: list[tuple[str | None, str, dict[str, Any]]] = []
    raw_calls = message.get("tool_calls")
    if isinstance(raw_calls, list):
        for raw in raw_calls:
            if not isinstance(raw, dict):
                continue
            function = as_dict(raw.get("function")) or raw
            name = function.get("name") or raw.get("name") or "unknown"
            args = parse_arguments(function.get("arguments", function.get("args")))
            call_id = as_str(raw.get("id"))
            out.append((call_id, str(name), args))
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and legacy.get("name"):
        out.append((None, str(legacy["name"]), parse_arguments(legacy.get("arguments"))))
    return out


def _result_ids(message: dict[str, Any], builder: TrajectoryBuilder) -> list[str]:
    ids = message.get("tool_call_ids")
    if isinstance(ids, list):
        found = [i for i in ids if isinstance(i, str) and builder.has_call(i)]
        if found:
            return found
    single = message.get("tool_call_id")
    if isinstance(single, str) and builder.has_call(single):
        return [single]
    pending = builder.pending_ids()
    return pending[:1]


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """Trajectories from a chat-messages array, object, or JSONL file."""
    name = str(path)
    if _is_jsonl(path):
        loose: list[Any] = []
        count = 0
        for number, obj in iter_json_lines(path, report):
            if isinstance(obj.get("messages"), list):
                count += 1
                yield _one(path, f"{path.stem}#{number}", obj["messages"], report, obj, **options)
            elif "role" in obj:
                loose.append(obj)
            else:
                report.skip(name, number, "neither a chat message nor a {messages: [...]} record")
        if loose:
            yield _one(path, path.stem, loose, report, {}, **options)
        return
    data = load_document(path, report)
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        yield _one(path, path.stem, data["messages"], report, data, **options)
    elif isinstance(data, list):
        yield _one(path, path.stem, data, report, {}, **options)
    elif data is not None:
        report.warn(name, None, "not a list of chat messages")


def _one(
    path: Path,
    id: str,
    messages: list[Any],
    report: ReadReport,
    envelope: dict[str, Any],
    **options: Any,
) -> Trajectory:
    builder = TrajectoryBuilder(
        id=str(envelope.get("id") or id), source=str(path), format=FORMAT, **options
    )
    feed_messages(builder, messages, report, name=str(path))
    return builder.build()


def _is_jsonl(path: Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(65536).lstrip()
    return (head.startswith(b"{") and b"\n{" in head.rstrip()[1:]) or path.suffix == ".jsonl"


__all__ = ["FORMAT", "default_judge", "feed_messages", "read"]
