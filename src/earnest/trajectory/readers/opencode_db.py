"""opencode sessions: the SQLite database ``opencode.db``, and the older JSON ``storage/`` folder.

opencode 1.2 and later keep every session in one SQLite file
(``$XDG_DATA_HOME/opencode/opencode.db``; ``OPENCODE_DB`` names another). Three tables hold the
conversation, each with its JSON in a ``data`` column:

- ``session``: ``id``, ``directory`` (the project), ``version`` (opencode's), ``time_created``;
- ``message``: ``id``, ``session_id``, ``time_created``, ``data`` = ``{role, time, finish?,
  path: {cwd}, ...}`` — one per user prompt and one per assistant step;
- ``part``: ``id``, ``message_id``, ``session_id``, ``data`` = ``{type, ...}``: ``text`` (a
  user's prompt or the assistant's words; ``synthetic: true`` for text opencode added itself),
  ``tool`` (``{tool, callID, state: {status, input, output | error, metadata}}``, status
  ``pending``, ``running``, ``completed`` or ``error``), ``reasoning``, ``step-start``,
  ``step-finish``, ``file``, ``patch``...

Ids sort in creation order (``msg_…``, ``prt_…`` are time-based), so messages are read by
``time_created, id`` and parts by ``id``. The file is opened read-only (SQLite URI
``mode=ro``): reading never writes to opencode's database.

Before 1.2 (1.1.65 is the last such release) opencode wrote the same records as one JSON file
each under ``$XDG_DATA_HOME/opencode/storage/`` (its ``Storage`` module): ``session/<project
id>/<session id>.json`` (``{id, version, projectID, directory, time: {created}}``),
``message/<session id>/<message id>.json`` (the message's ``data``, with ``id`` and
``sessionID``) and ``part/<message id>/<part id>.json`` (the part's). That folder — known by
its shape, a ``session`` and a ``message`` folder (:func:`is_opencode_storage`) — is the second
source of this reader: the folder gives all its sessions, one ``session/<project>/<id>.json``
file gives that session. Both sources map records to the trajectory the same way
(:func:`_build`). A file that is not a JSON object is skipped with a warning naming it; an id
that is not a plain name (``..``, a slash) is never followed as a path. A stop hook's reason that
earnest's opencode plugin queued is a plain user message starting ``completion-without-effect:``
or ``unverified-claim:``; :func:`~earnest.trajectory.text.user_text_kind` takes it as the run
going on, not as a new prompt.

One trajectory per session, oldest first (``session_id=`` reads one). Metadata: ``session_id``,
``cli_version``, ``cwd``, ``assistant_turns`` (assistant messages), ``last_message_id`` and
``last_message_tool_calls`` (the newest assistant message and how many tool calls it holds:
the stop hook's test for "tool calls follow this text").

Example:
    >>> import sqlite3, tempfile, pathlib, json
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "opencode.db"
    >>> con = sqlite3.connect(db)
    >>> _ = con.executescript(SCHEMA_FOR_TESTS)
    >>> _ = con.execute("insert into session values ('ses_1', '/w', '1.18.33', 1)")
    >>> for mid, data in [("msg_1", {"role": "user"}), ("msg_2", {"role": "assistant"})]:
    ...     _ = con.execute("insert into message values (?, 'ses_1', 1, ?)", (mid, json.dumps(data)))
    >>> parts = [("prt_1", "msg_1", {"type": "text", "text": "list files"}),
    ...          ("prt_2", "msg_2", {"type": "tool", "tool": "bash", "callID": "c1", "state": {
    ...              "status": "completed", "input": {"command": "ls"}, "output": "a.py",
    ...              "metadata": {"exit": 0}}}),
    ...          ("prt_3", "msg_2", {"type": "text", "text": "One file: a.py."})]
    >>> for pid, mid, data in parts:
    ...     _ = con.execute("insert into part values (?, ?, 'ses_1', ?)", (pid, mid, json.dumps(data)))
    >>> con.commit(); con.close()
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(db, ReadReport()))
    >>> t.user_request, t.tool_calls[0].name, t.tool_calls[0].outcome, t.final_message
    ('list files', 'bash', 'success', 'One file: a.py.')
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import quote

from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.opencode_storage import is_opencode_storage, storage_of
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, parse_arguments, user_text_kind

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "opencode"
SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = frozenset({"session", "message", "part"})

SCHEMA_FOR_TESTS = """
create table session (id text primary key, directory text, version text, time_created integer);
create table message (id text primary key, session_id text, time_created integer, data text);
create table part (id text primary key, message_id text, session_id text, data text);
"""
"""The columns this reader uses, as opencode 1.18 declares them (opencode has more)."""


def open_readonly(path: Path) -> sqlite3.Connection:
    """``path`` opened read-only (``mode=ro``): nothing is ever written to it.

    Example:
        >>> open_readonly(Path("/nonexistent/opencode.db"))
        Traceback (most recent call last):
        ...
        sqlite3.OperationalError: unable to open database file
    """
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=5.0)


def is_opencode_db(path: Path) -> bool:
    """Whether ``path`` is a SQLite file with opencode's ``session``/``message``/``part``."""
    try:
        with open(path, "rb") as handle:
            if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                return False
        con = open_readonly(path)
    except (OSError, sqlite3.Error):
        return False
    try:
        names = {row[0] for row in con.execute("select name from sqlite_master where type='table'")}
    except sqlite3.Error:
        return False
    finally:
        con.close()
    return names >= TABLES


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per session (``session_id=``: only that one): of the database, of the
    ``storage`` folder, or the one session of a ``storage/session/<project>/<id>.json``."""
    if path.is_dir():
        yield from read_storage(path, report, **options)
        return
    if storage_of(path) is not None:
        yield from read_storage(path, report, **options)
        return
    name = str(path)
    wanted = options.pop("session_id", None)
    try:
        con = open_readonly(path)
    except sqlite3.Error as exc:
        report.warn(name, None, f"cannot open the opencode database read-only: {exc}")
        return
    try:
        sessions = _sessions(con, wanted)
        for sid, directory, version in sessions:
            yield _session(con, name, report, sid, directory, version, options)
    except sqlite3.Error as exc:
        report.warn(name, None, f"opencode database not readable: {exc}")
    finally:
        con.close()


def _sessions(con: sqlite3.Connection, wanted: str | None) -> list[tuple[str, str, str]]:
    query = "select id, directory, version from session"
    if wanted is not None:
        rows = con.execute(query + " where id = ?", (wanted,)).fetchall()
    else:
        rows = con.execute(query + " order by time_created, id").fetchall()
    return [(str(r[0]), as_str(r[1]) or "", as_str(r[2]) or "") for r in rows]


def _json(raw: Any, name: str, place: str, report: ReadReport) -> dict[str, Any] | None:
    try:
        value = safe_loads(raw) if isinstance(raw, (str, bytes)) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        report.skip(name, None, f"{place}: data is not a JSON object")
        return None
    return value


def _session(
    con: sqlite3.Connection,
    name: str,
    report: ReadReport,
    sid: str,
    directory: str,
    version: str,
    options: dict[str, Any],
) -> Trajectory:
    parts: dict[str, list[dict[str, Any]]] = {}
    for pid, mid, raw in con.execute(
        "select id, message_id, data from part where session_id = ? order by id", (sid,)
    ):
        data = _json(raw, name, f"part {pid}", report)
        if data is not None:
            parts.setdefault(str(mid), []).append(data)
    messages: list[tuple[str, Any, dict[str, Any]]] = []
    for mid, created, raw in con.execute(
        "select id, time_created, data from message where session_id = ? order by time_created, id",
        (sid,),
    ):
        data = _json(raw, name, f"message {mid}", report)
        if data is not None:
            messages.append((str(mid), created, data))
    return _build(name, report, sid, directory, version, messages, parts, options)


def _build(
    name: str,
    report: ReadReport,
    sid: str,
    directory: str,
    version: str,
    messages: Iterable[tuple[str, Any, dict[str, Any]]],
    parts: dict[str, list[dict[str, Any]]],
    options: dict[str, Any],
) -> Trajectory:
    """One session's trajectory from its records, whichever source they came from:
    ``messages`` are ``(id, created ms, data)`` in order, ``parts`` each message's in order."""
    builder = TrajectoryBuilder(id=sid, source=name, format=FORMAT, **options)
    builder.metadata["session_id"] = sid
    if version:
        builder.metadata["cli_version"] = version
    if directory:
        builder.metadata["cwd"] = directory
    turns = 0
    last_id, last_calls = "", 0
    for mid, created, data in messages:
        stamp = _iso(created)
        role = data.get("role")
        if role == "assistant":
            builder.new_turn()
            turns += 1
            last_id = str(mid)
            last_calls = _assistant(builder, parts.get(str(mid), []), stamp)
            error = data.get("error")
            if isinstance(error, dict):
                builder.signal("api_error", content_text(error.get("data") or error.get("name")))
        elif role == "user":
            _user(builder, parts.get(str(mid), []), stamp)
        else:
            report.skip(name, None, f"message {mid}: unknown role {role!r}")
    builder.metadata["assistant_turns"] = turns
    builder.metadata["last_message_id"] = last_id
    builder.metadata["last_message_tool_calls"] = last_calls
    return builder.build()


_PLAIN_ID = re.compile(r"^[A-Za-z0-9_-]{1,200}$")
"""An id that may name a file or folder of the storage (never ``..``, never a slash)."""


def read_storage(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """The sessions of the storage folder ``path``, oldest first, or the one session of the
    session file ``path`` (``session_id=``: only that one)."""
    wanted = options.pop("session_id", None)
    root = path if path.is_dir() else storage_of(path)
    if root is None or not is_opencode_storage(root):
        report.warn(str(path), None, "not an opencode storage folder (no session/ and message/)")
        return
    files = [path] if path.is_file() else _children(root / "session", "*/*.json")
    sessions: list[tuple[Any, str, Path, dict[str, Any]]] = []
    for file in files:
        data = _json_file(file, report)
        if data is None:
            continue
        sid = as_str(data.get("id")) or file.stem
        if not _PLAIN_ID.match(sid):
            report.skip(str(file), None, f"session id {sid!r} is not a plain name")
            continue
        if wanted is not None and sid != wanted:
            continue
        time = data.get("time")
        created = time.get("created") if isinstance(time, dict) else None
        sessions.append((created if isinstance(created, int) else 0, sid, file, data))
    for _, sid, file, data in sorted(sessions, key=lambda s: (s[0], s[1])):
        messages: list[tuple[str, Any, dict[str, Any]]] = []
        parts: dict[str, list[dict[str, Any]]] = {}
        for message_file in _children(root / "message" / sid):
            message = _json_file(message_file, report)
            if message is None:
                continue
            mid = as_str(message.get("id")) or message_file.stem
            time = message.get("time")
            created = time.get("created") if isinstance(time, dict) else None
            messages.append((mid, created, message))
            if _PLAIN_ID.match(mid):
                found = (_json_file(f, report) for f in _children(root / "part" / mid))
                parts[mid] = [p for p in found if p is not None]
        messages.sort(key=lambda m: (m[1] if isinstance(m[1], int) else 0, m[0]))
        yield _build(
            str(file),
            report,
            sid,
            as_str(data.get("directory")) or "",
            as_str(data.get("version")) or "",
            messages,
            parts,
            options,
        )


def _children(folder: Path, pattern: str = "*.json") -> list[Path]:
    """The files ``pattern`` finds in ``folder``, by name (ids sort in creation order);
    never through a link."""
    try:
        found = folder.glob(pattern)
        return sorted(
            p for p in found if p.is_file() and not p.is_symlink() and not p.parent.is_symlink()
        )
    except OSError:
        return []


def _json_file(path: Path, report: ReadReport) -> dict[str, Any] | None:
    """The JSON object in ``path``; a warning naming the file when it is not one."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        report.skip(str(path), None, f"cannot read: {exc.strerror or exc}")
        return None
    try:
        value = safe_loads(raw)
    except ValueError as exc:
        report.skip(str(path), None, f"not JSON: {exc}")
        return None
    if not isinstance(value, dict):
        report.skip(str(path), None, "not a JSON object")
        return None
    return value


def _iso(ms: Any) -> str | None:
    if not isinstance(ms, int) or isinstance(ms, bool) or ms <= 0:
        return None
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _user(builder: TrajectoryBuilder, parts: list[dict[str, Any]], stamp: str | None) -> None:
    texts = [
        p["text"]
        for p in parts
        if p.get("type") == "text" and isinstance(p.get("text"), str) and not p.get("synthetic")
    ]
    text = "\n".join(texts)
    if text.strip():
        builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)


def _assistant(builder: TrajectoryBuilder, parts: list[dict[str, Any]], stamp: str | None) -> int:
    """The assistant step's text and tool calls; returns how many tool calls it holds."""
    texts: list[str] = []
    calls = 0
    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str) and not part.get("synthetic"):
            texts.append(part["text"])
        elif kind == "tool":
            calls += 1
            _tool(builder, part)
    text = "".join(texts)
    if text.strip():
        builder.message("assistant", text, timestamp=stamp)
    return calls


def _tool(builder: TrajectoryBuilder, part: dict[str, Any]) -> None:
    tool = as_str(part.get("tool")) or "unknown"
    state = part.get("state")
    state = state if isinstance(state, dict) else {}
    args = parse_arguments(state.get("input"))
    call_id = builder.tool_call(
        as_str(part.get("callID")) or as_str(part.get("id")),
        tool,
        args,
        edits=structured_edits(tool, args),
    )
    status = state.get("status")
    if status not in ("completed", "error"):
        return  # pending or running: no result yet
    metadata = state.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    exit_code = metadata.get("exit")
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        exit_code = None
    if status == "error":
        error = content_text(state.get("error")) or "error"
        builder.tool_result(call_id, is_error=True, output=error, error=error, exit_code=exit_code)
        return
    output = content_text(state.get("output"))
    builder.tool_result(call_id, is_error=bool(exit_code), output=output, exit_code=exit_code)


__all__ = [
    "FORMAT",
    "SCHEMA_FOR_TESTS",
    "is_opencode_db",
    "is_opencode_storage",
    "open_readonly",
    "read",
    "read_storage",
    "storage_of",
]
