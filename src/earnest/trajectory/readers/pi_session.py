"""Pi session files: ``~/.pi/agent/sessions/--<cwd, "/" as "-">--/<timestamp>_<uuid>.jsonl``.

One JSON entry per line (Pi's documented session format, version 3). The first line is the
header ``{"type": "session", "version", "id", "timestamp", "cwd"}``; every other entry has
``{type, id, parentId, timestamp}`` and the entries form a tree (``/tree`` branches in place).
The conversation is the branch that ends at the last entry, read from the root down:

- ``message`` entries hold ``message: {role, content, timestamp}``: ``user`` (``content`` a
  string or ``text`` / ``image`` blocks), ``assistant`` (``text``, ``thinking`` and
  ``toolCall {id, name, arguments}`` blocks; ``stopReason`` ``error`` / ``aborted`` with an
  ``errorMessage``), ``toolResult`` (``toolCallId``, ``toolName``, ``content``, ``isError``),
  ``bashExecution`` (a ``!command`` the user ran: not the agent's), ``custom`` and the
  summaries (context, not the conversation);
- ``model_change``, ``thinking_level_change``, ``compaction``, ``label``, ``custom``... are
  Pi's bookkeeping and passed over.

A stop hook's re-prompt (earnest's Pi extension queues the reason as a follow-up) is a plain
user message: :func:`earnest.trajectory.text.user_text_kind` tells it from a prompt.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> lines = [{"type": "session", "version": 3, "id": "s1", "cwd": "/w"},
    ...     {"type": "message", "id": "a", "parentId": None,
    ...      "message": {"role": "user", "content": [{"type": "text", "text": "ls"}]}},
    ...     {"type": "message", "id": "b", "parentId": "a", "message": {"role": "assistant",
    ...      "content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}]}},
    ...     {"type": "message", "id": "c", "parentId": "b", "message": {"role": "toolResult",
    ...      "toolCallId": "c1", "toolName": "ls", "isError": False,
    ...      "content": [{"type": "text", "text": "a.py"}]}},
    ...     {"type": "message", "id": "d", "parentId": "c", "message": {"role": "assistant",
    ...      "content": [{"type": "text", "text": "One file."}]}}]
    >>> _ = p.write_text("\\n".join(json.dumps(r) for r in lines) + "\\n")
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, t.tool_calls[0].outcome, t.final_message
    ('ls', 'success', 'One file.')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines, lines_backward, parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, parse_arguments, user_text_kind

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "pi-session"
CONTEXT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary"})


def run_start(path: Path) -> int:
    """The byte offset of the entry that starts the session's current run: the last user
    prompt on the branch that ends at the last entry (followed up by ``parentId``, as
    :func:`read` follows it), found by reading the file backwards; 0 when there is none. A
    stop hook reads from there (``read(path, report, start=...)``), the header besides: the
    branch then begins at that prompt, as a whole read's run does.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
        >>> def user(i, parent, t): return {"type": "message", "id": i, "parentId": parent,
        ...     "message": {"role": "user", "content": t}}
        >>> lines = [json.dumps(r) + "\\n" for r in ({"type": "session", "id": "s"},
        ...     user("a", None, "first"), user("b", "a", "second"), user("c", "a", "other"))]
        >>> _ = p.write_text("".join(lines))
        >>> run_start(p) == sum(map(len, lines[:3]))  # the last entry's branch: a, c
        True
    """
    report = ReadReport()
    want: Any = None
    with open(path, "rb") as handle:
        for offset, raw in lines_backward(handle, handle.seek(0, 2)):
            if not raw.endswith(b"\n") or (want is not None and f'"{want}"'.encode() not in raw):
                continue
            record = parse_line(raw, str(path), None, report)
            if record is None:
                continue
            if want is None:  # the last entry: its branch is the conversation
                want = record.get("id")
                if not isinstance(want, str):
                    return 0
            elif record.get("id") != want:
                continue
            message = record.get("message")
            if record.get("type") == "message" and isinstance(message, dict):
                text = content_text(message.get("content"))
                if message.get("role") == "user" and user_text_kind(text) == "prompt":
                    return offset
            want = record.get("parentId")
            if not isinstance(want, str):
                return 0
    return 0


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per session file: the branch that ends at its last entry; ``start``
    (a byte offset from :func:`run_start`) reads the header and then from there on."""
    name = str(path)
    start = int(options.pop("start", 0) or 0)
    header: dict[str, Any] = {}
    entries: dict[str, tuple[int, dict[str, Any]]] = {}
    order: list[tuple[int, dict[str, Any]]] = []
    records = iter_json_lines(path, report, start=start)
    if start:
        with open(path, "rb") as handle:
            first = parse_line(handle.readline(1 << 20), name, 1, report)
        if first is not None and first.get("type") == "session":
            header = first
    for number, record in records:
        kind = record.get("type")
        if kind == "session" and not header:
            header = record
            continue
        if not isinstance(kind, str):
            report.skip(name, number, "not a Pi session entry (no type)")
            continue
        order.append((number, record))
        entry_id = record.get("id")
        if isinstance(entry_id, str):
            entries[entry_id] = (number, record)
    if not header and not order:
        return
    sid = as_str(header.get("id"))
    builder = TrajectoryBuilder(id=sid or path.stem, source=name, format=FORMAT, **options)
    if sid:
        builder.metadata["session_id"] = sid
    version = header.get("version")
    if isinstance(version, int):
        builder.metadata["session_version"] = version
    if start:
        builder.metadata["run_offset"] = start
    turns = 0
    for number, record in _branch(order, entries):
        if record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            report.skip(name, number, "message entry without a message object")
            continue
        stamp = as_str(record.get("timestamp"))
        role = message.get("role")
        if role == "assistant":
            builder.new_turn()
            turns += 1
            _assistant(builder, message, stamp)
        elif role == "user":
            text = content_text(message.get("content"))
            if text.strip():
                builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        elif role == "toolResult":
            _result(builder, message, name, number, report)
        elif role not in CONTEXT_ROLES:
            report.skip(name, number, f"not a Pi message role ({role!r})")
    builder.metadata["assistant_turns"] = turns
    yield builder.build()


def _branch(
    order: list[tuple[int, dict[str, Any]]], entries: dict[str, tuple[int, dict[str, Any]]]
) -> list[tuple[int, dict[str, Any]]]:
    """The entries from the root to the last one, following ``parentId`` (a file of entries
    without ids, Pi's legacy version 1, is one line of entries)."""
    if not order:
        return []
    last = order[-1][1]
    if not isinstance(last.get("id"), str):
        return order
    chain: list[tuple[int, dict[str, Any]]] = []
    seen: set[str] = set()
    current: Any = last.get("id")
    while isinstance(current, str) and current in entries and current not in seen:
        seen.add(current)
        number, record = entries[current]
        chain.append((number, record))
        current = record.get("parentId")
    chain.reverse()
    return chain


def _assistant(builder: TrajectoryBuilder, message: dict[str, Any], stamp: str | None) -> None:
    content = message.get("content")
    texts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "toolCall":
            name = str(part.get("name") or "unknown")
            args = parse_arguments(part.get("arguments"))
            builder.tool_call(
                as_str(part.get("id")), name, args, edits=structured_edits(name, args)
            )
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    if isinstance(content, str):
        texts.append(content)
    text = "".join(texts)
    if text.strip():
        builder.message("assistant", text, timestamp=stamp)
    if message.get("stopReason") in ("error", "aborted"):
        detail = as_str(message.get("errorMessage")) or str(message.get("stopReason"))
        if message.get("stopReason") == "aborted":
            builder.signal("interrupted", detail)
        else:
            builder.signal("api_error", detail)


def _result(
    builder: TrajectoryBuilder, message: dict[str, Any], name: str, number: int, report: ReadReport
) -> None:
    call_id = as_str(message.get("toolCallId")) or ""
    output = content_text(message.get("content"))
    failed = message.get("isError") is True
    done = builder.tool_result(
        call_id,
        is_error=failed,
        output=output,
        error=(output.strip()[:500] or "tool error") if failed else None,
    )
    if not done:
        report.skip(name, number, f"tool result for an unknown call {call_id!r}")


__all__ = ["CONTEXT_ROLES", "FORMAT", "read", "run_start"]
