"""Gemini CLI native chat logs (``~/.gemini/tmp/<project>/chats/session-*.json[l]``).

Two layouts, one format name:

- up to 0.3x, one JSON document ``{sessionId, messages: [{type: user|gemini|info|error,
  content, toolCalls: [{id, name, args, result: [{functionResponse: {response: {output|error}}}],
  status}]}]}``;
- from 0.4x (0.61 observed), ``session-*.jsonl``: a header line ``{sessionId, projectHash,
  startTime, ...}``, then one record per message (a record whose ``id`` was seen replaces
  that message: Gemini rewrites a message as its tool calls finish), ``{"$set": {...}}``
  metadata updates (a ``messages`` list there replaces the history) and ``{"$rewindTo": id}``
  (the history from that message on is dropped).

Each ``gemini`` message is one turn; its tool calls carry their own results.

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
    >>> q = p.with_name("session-1.jsonl")
    >>> _ = q.write_text("\\n".join(json.dumps(r) for r in [
    ...     {"sessionId": "s", "projectHash": "h", "startTime": "2026-12-01T10:00:00Z"},
    ...     {"id": "u1", "type": "user", "content": [{"text": "hi"}]},
    ...     {"id": "g1", "type": "gemini", "content": "Hel"},
    ...     {"$set": {"lastUpdated": "2026-12-01T10:00:01Z"}},
    ...     {"id": "g1", "type": "gemini", "content": "Hello!"}]) + "\\n")
    >>> t = next(read(q, ReadReport()))
    >>> t.user_request, t.final_message
    ('hi', 'Hello!')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from earnest.lazyre import LazyPattern
from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines, lines_backward, parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    as_list,
    as_str,
    content_text,
    limit_reason,
    parse_arguments,
    user_text_kind,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    import mmap
    from typing import Any

FORMAT = "gemini-cli-session"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per chat log, in either layout. A ``run_only`` read of a session document
    parses only the current run when it can (:func:`_document_run`)."""
    messages: list[Any]
    records = _jsonl_layout(path, report)
    run = _document_run(path) if records is None and options.get("run_only") else None
    if run is not None:
        sid, messages = run
    elif records is None:
        data = load_document(path, report)
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            if data is not None:
                report.warn(str(path), None, "no 'messages' list in Gemini CLI session")
            return
        messages = data["messages"]
        sid = data.get("sessionId")
    else:
        run = _jsonl_run(path, report) if options.get("run_only") else None
        header, messages = run or _replay(list(records), str(path), report)
        sid = header.get("sessionId")
    yield _build(path, report, sid, messages, options)


def _jsonl_layout(path: Path, report: ReadReport) -> Iterator[tuple[int, dict[str, Any]]] | None:
    """The records of a ``session-*.jsonl`` file (read as they are taken), or ``None`` for the
    one-document layout.

    The JSONL layout's first line is a complete object without ``messages`` (the header);
    a document's first line is ``{`` (indented) or the whole document with its ``messages``.
    """
    with open(path, "rb") as handle:
        first = handle.readline()
    try:
        head = safe_loads(first)
    except ValueError:
        return None
    if not isinstance(head, dict) or isinstance(head.get("messages"), list):
        return None
    return iter_json_lines(path, report)


# How Gemini CLI lays out its session document (``JSON.stringify(session, null, 2)``): the
# top-level keys indented by two spaces, the messages by four, their keys by six. A raw
# newline is never inside a JSON string, so each of these is structure, never text.
_MESSAGES_KEY = b'\n  "messages": [\n'
_MESSAGES_END = b"\n  ]"
_USER_TYPE = b'\n      "type": "user"'
_ELEMENT = b"\n    {"
_ELEMENT_END = b"\n    }"


def _document_run(path: Path) -> tuple[Any, list[Any]] | None:
    """The session id and the messages from the last prompt on of a session document, parsed
    without the earlier runs; ``None`` whenever the file is not laid out as expected (the
    caller then reads it whole, as it would anyway).

    The last prompt is found by searching the bytes backwards for a user message's
    ``"type": "user"`` line, then its element's opening. That place is taken only if the
    bytes from there to the end of the ``messages`` array parse as a list of whole messages,
    the rest of the file as the end of the top-level object, and the first of those messages
    is the last one :func:`_run_start` takes for a prompt: the same run as the whole read.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "session.json"
        >>> _ = p.write_text(json.dumps({"sessionId": "s", "messages": [
        ...     {"type": "user", "content": "one"}, {"type": "gemini", "content": "1"},
        ...     {"type": "user", "content": "two"}, {"type": "gemini", "content": "2"}]},
        ...     indent=2))
        >>> _document_run(p)
        ('s', [{'type': 'user', 'content': 'two'}, {'type': 'gemini', 'content': '2'}])
    """
    import mmap
    import os

    from earnest.trajectory.readers.documents import MAX_DOCUMENT_BYTES

    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not 0 < size <= MAX_DOCUMENT_BYTES:
                return None
            # Mapped, not read: a search touches pages where it looks (a 20 MB read costs
            # ~15 ms of cpu time, the mapping's search ~3 ms).
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _run_in(data)
    except (OSError, ValueError):
        return None


def _run_in(data: mmap.mmap) -> tuple[Any, list[Any]] | None:
    """:func:`_document_run` on the file's bytes."""
    key = data.find(_MESSAGES_KEY)
    if key < 0:
        return None
    begin = key + len(_MESSAGES_KEY) - 1  # the newline before the first message
    # The messages end at the first top-level "]" after them. Every Gemini CLI release that
    # wrote this layout (up to the JSONL migration, google-gemini/gemini-cli f744913584) had
    # one top-level array of objects, the messages: ConversationRecord is {sessionId,
    # projectHash, startTime, lastUpdated, messages, summary?: string, directories?: string[],
    # kind?: string}. So when the file's last top-level "]" closes an array of objects, it
    # is theirs, found from the end with a few bytes read; else (the directories last) the
    # first "]" after them is searched for, a scan of the whole file (~7-17 ms on 20 MB).
    end = data.rfind(_MESSAGES_END)
    last_holds_objects = data[end - len(_ELEMENT_END) : end] == _ELEMENT_END
    if (
        end >= begin
        and not last_holds_objects
        and data.rfind(_MESSAGES_END + b',\n  "', begin) >= 0
    ):
        end = data.find(_MESSAGES_END, begin)
    if end < begin:
        return None
    try:
        head = safe_loads(data[:key].decode("utf-8-sig").rstrip().rstrip(",") + "}")
        tail = data[end + len(_MESSAGES_END) :].decode("utf-8").strip()
        rest = safe_loads("{" + tail[1:]) if tail.startswith(",") else None
    except ValueError:  # UnicodeDecodeError is one
        return None
    if not isinstance(head, dict) or "messages" in head:
        return None
    if tail != "}" and (not isinstance(rest, dict) or {"messages", "sessionId"} & set(rest)):
        return None
    found = end
    while True:
        found = data.rfind(_USER_TYPE, begin, found)
        element = data.rfind(_ELEMENT, begin, found) if found >= 0 else -1
        close = data.find(_ELEMENT_END, found, end + 1) if element >= 0 else -1
        if close < 0 or data[element - 1 : element] not in (b"[", b","):
            return None
        try:
            message = safe_loads(data[element : close + len(_ELEMENT_END)].decode("utf-8"))
            if not _prompt(message):
                continue  # a user message that is not a prompt (a hook's reason, a command)
            messages = safe_loads("[" + data[element:end].decode("utf-8") + "]")
        except ValueError:  # UnicodeDecodeError is one
            return None
        # A later prompt laid out otherwise would start the run: then read the whole file.
        ok = isinstance(messages, list) and messages and _run_start(messages) == 0
        return (head.get("sessionId"), messages) if ok else None


def _prompt(message: Any) -> bool:
    """Whether a message is a user message :func:`_build` takes for a prompt."""
    return (
        isinstance(message, dict)
        and message.get("type") == "user"
        and user_text_kind(content_text(message.get("content"))) == "prompt"
    )


_ID = LazyPattern(r"[A-Za-z0-9_.:-]{1,200}")
_MAX_IDS = 48
"""Messages in a run beyond which the log is replayed whole: each id is one search of the
bytes before the prompt (~1-2 ms on 20 MB), so a run of hundreds would cost more than that."""


def _jsonl_run(path: Path, report: ReadReport) -> tuple[dict[str, Any], list[Any]] | None:
    """The header and the history from the last prompt on of a ``session-*.jsonl`` log, the
    lines before that prompt not parsed; ``None`` (read it all) whenever a line after the
    prompt could change what came before it.

    The log is read backwards from its end, each line parsed, to the last user message
    :func:`_build` takes for a prompt. That run is taken only if no line after the prompt is
    a ``$rewindTo`` (it cuts the history at an earlier message), a ``$set`` of the
    ``messages`` (it replaces the history) or of the ``sessionId``, or a line of another
    kind, and no message of the run is a rewrite of one before the prompt (its id is not in
    the bytes before it; a run of more than :data:`_MAX_IDS` messages is replayed whole
    rather than searched for so many); then the run replayed from the prompt is the whole
    replay's run.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "session-1.jsonl"
        >>> _ = p.write_text("\\n".join(json.dumps(r) for r in [
        ...     {"sessionId": "s", "projectHash": "h"},
        ...     {"id": "u1", "type": "user", "content": "one"},
        ...     {"id": "u2", "type": "user", "content": "two"},
        ...     {"$set": {"lastUpdated": "2026-12-01T10:00:01Z"}},
        ...     {"id": "g2", "type": "gemini", "content": "2"}]) + "\\n")
        >>> header, messages = _jsonl_run(p, ReadReport())
        >>> header["sessionId"], [m["id"] for m in messages]
        ('s', ['u2', 'g2'])
    """
    import mmap

    name = str(path)
    run: list[tuple[int, dict[str, Any]]] = []
    with open(path, "rb") as handle:
        first = handle.readline()
        header = parse_line(first, name, 1, ReadReport())
        prompt = -1
        for offset, raw in lines_backward(handle, handle.seek(0, 2)):
            if offset < len(first):
                return None  # no prompt after the header
            record = parse_line(raw, name, None, report)
            if record is None:
                continue  # skipped as the whole read skips it
            if "$rewindTo" in record or "$set" in record:
                update = record.get("$set")
                if not isinstance(update, dict) or {"messages", "sessionId"} & set(update):
                    return None
            elif "type" not in record:
                return None
            run.append((0, record))
            if _prompt(record):
                prompt = offset
                break
        ids = {str(r["id"]) for _, r in run if "id" in r}
        if header is None or len(ids) > _MAX_IDS or not all(_ID.fullmatch(i) for i in ids):
            return None
        if prompt > len(first):
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                for mid in ids:
                    if data.find(f'"{mid}"'.encode(), len(first), prompt) >= 0:
                        return None  # a rewrite of an earlier message: replay it all
    run.append((1, header))
    head, messages = _replay(run[::-1], name, report)
    return (head, messages) if messages and _run_start(messages) == 0 else None


def _replay(
    records: list[tuple[int, dict[str, Any]]], name: str, report: ReadReport
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the message history a JSONL log holds at its end."""
    header: dict[str, Any] = {}
    slots: list[dict[str, Any]] = []
    where: dict[str, int] = {}  # message id -> its slot

    def cut(at: int) -> None:
        for gone in slots[at:]:
            where.pop(str(gone.get("id")), None)
        del slots[at:]

    for number, record in records:
        if "$rewindTo" in record:
            cut(where.get(str(record["$rewindTo"]), 0))
        elif "$set" in record:
            update = record["$set"]
            if not isinstance(update, dict):
                report.skip(name, number, "$set is not an object")
                continue
            header.update({k: v for k, v in update.items() if k != "messages"})
            if isinstance(update.get("messages"), list):
                cut(0)
                for message in update["messages"]:
                    if isinstance(message, dict):
                        _put(slots, where, message)
        elif "type" in record:
            _put(slots, where, record)
        elif not slots and ("sessionId" in record or "projectHash" in record):
            header.update(record)
        else:
            report.skip(name, number, "neither a message, a $set nor a $rewindTo record")
    return header, slots


def _put(slots: list[dict[str, Any]], where: dict[str, int], message: dict[str, Any]) -> None:
    mid = message.get("id")
    if isinstance(mid, str) and mid in where:
        slots[where[mid]] = message  # a later write of the same message wins
        return
    if isinstance(mid, str):
        where[mid] = len(slots)
    slots.append(message)


def _run_start(messages: list[Any]) -> int:
    """The index of the last user message :func:`_build` takes for a prompt (0 if none): a
    ``run_only`` read keeps nothing before it, so nothing before it is built (a long
    session's earlier runs cost a stop most of its time)."""
    for index in range(len(messages) - 1, -1, -1):
        if _prompt(messages[index]):
            return index
    return 0


def _build(
    path: Path, report: ReadReport, sid: Any, messages: list[Any], options: dict[str, Any]
) -> Trajectory:
    builder = TrajectoryBuilder(
        id=str(sid or path.stem), source=str(path), format=FORMAT, **options
    )
    if isinstance(sid, str):
        builder.metadata["session_id"] = sid
    first = _run_start(messages) if options.get("run_only") else 0
    for number, message in enumerate(messages[first:], first + 1):
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
        elif kind in ("info", "warning"):
            builder.message("system", text, kind="system", timestamp=stamp)
        else:
            report.skip(str(path), None, f"message {number}: unknown type {kind!r}")
    return builder.build()


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
