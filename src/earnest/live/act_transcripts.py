"""The agent CLI's own transcript file of an acted-out sample, when its stdout says less.

Gemini CLI's ``stream-json`` events report a shell call as ``"status": "success"`` whatever
the command's exit code (the event carries the display text, not the ``Exit Code: N`` trailer
the model was sent), so a failed ``git merge`` would read as a success. Its session file —
``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`` (``.json`` before 0.6x), named by
the ``session_id`` of the stream's ``init`` event — holds each call's full result, and
:func:`earnest.live.act.behaviour` reads that one with the ``gemini-cli-session`` reader.
Codex's ``--json`` events leave out a command its own sandbox refused (seen with 0.171.0: an
``echo x > OUTSIDE`` that failed "Read-only file system" went back to the model with its exit
code, and no ``command_execution`` item was printed — the attempt outside the copy was
invisible), so its session file is read instead: ``$CODEX_HOME/sessions/YYYY/MM/DD/
rollout-<time>-<thread id>.jsonl`` (``~/.codex`` without ``CODEX_HOME``), named by the
``thread_id`` of the stream's ``thread.started`` event, read with the ``codex-rollout`` reader
(each ``function_call`` and its output, the exit code from the output's header). Pi prints
only its final text in print mode: its session file is the trajectory —
``<agent folder>/sessions/--<cwd, "/" as "-">--/<timestamp>_<uuid>.jsonl`` (the agent folder
``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``; ``PI_CODING_AGENT_SESSION_DIR`` holds them
itself when set), named by the sample's own workspace copy (a fresh folder per sample), read
with the ``pi-session`` reader. Qwen Code's
``stream-json`` events are Claude Code's shape, but a shell call that exited non-zero reads
``"is_error": false`` there (0.15.10) with no exit code; its chat log —
``$QWEN_RUNTIME_DIR`` or ``$QWEN_HOME`` (``~/.qwen``) ``/projects/<cwd>/chats/<session id>.jsonl``,
named by the ``session_id`` of the stream's ``system``/``init`` event — holds each result with
its ``Exit Code: N``, read with the ``qwen-code-chat`` reader. GitHub Copilot CLI's
``--output-format json`` events are its session log's own (with its streaming deltas besides),
and its session log is read: ``$COPILOT_HOME`` (``~/.copilot``)
``/session-state/<session id>/events.jsonl``, named by the ``sessionId`` of the stream's closing
``result`` event, whose ``session.start`` names the same id, taken only once it holds its
``session.shutdown`` (Copilot writes the log asynchronously: a log without its end leaves
the stdout, which holds every call with its exit code too, to be read instead), read with the
``copilot-cli-events`` reader. Claude Code's ``stream-json`` events carry each call's
outcome: its stdout is the trajectory.

The file is found, never guessed: the session id must look like one, and the file's first
record must name the same id (Pi's: its header must name the copy as its ``cwd``).

Example:
    >>> import json, tempfile, pathlib
    >>> home = pathlib.Path(tempfile.mkdtemp())
    >>> chats = home / ".gemini" / "tmp" / "workspace" / "chats"; chats.mkdir(parents=True)
    >>> sid = "09ba605a-00bd-4710-9be1-4fe615bfbec9"
    >>> _ = (chats / "session-2026-12-01T21-24-09ba605a.jsonl").write_text(
    ...     json.dumps({"sessionId": sid}) + "\\n")
    >>> out = json.dumps({"type": "init", "session_id": sid})
    >>> gemini_session_file(out, home).name
    'session-2026-12-01T21-24-09ba605a.jsonl'
    >>> gemini_session_file(out.replace("09ba", "ffff"), home) is None
    True
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from earnest.safejson import loads as safe_loads

_SESSION_ID = re.compile(r"^[0-9a-fA-F][0-9a-fA-F-]{7,63}$")
_HEAD = 64 * 1024  # the init event is the stream's first line; the id record the file's first


def stream_session_id(output: str) -> str | None:
    """The ``session_id`` of the first ``init`` event of a Gemini CLI ``stream-json`` log."""
    return _first_event_id(output, "init", "session_id")


def _first_event_id(output: str, kind: str, key: str, subtype: str | None = None) -> str | None:
    """``key`` of the first event of type ``kind`` (and ``subtype``, when given) in a
    JSON-lines log, if it looks like an id (so that it can name a file: hex digits and dashes
    only)."""
    for line in output[:_HEAD].splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = safe_loads(line)
        except ValueError:
            continue
        if (
            isinstance(event, dict)
            and event.get("type") == kind
            and (subtype is None or event.get("subtype") == subtype)
        ):
            found = event.get(key)
            return found if isinstance(found, str) and _SESSION_ID.match(found) else None
    return None


def _names_session(path: Path, sid: str) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return False
    first = head.splitlines()[0] if head.strip() else ""
    try:
        record = safe_loads(first if path.suffix == ".jsonl" else head)
    except ValueError:
        # A pretty-printed session-*.json cut at _HEAD: its opening names the id.
        return f'"sessionId": {json.dumps(sid)}' in head or f'"sessionId":{json.dumps(sid)}' in head
    return isinstance(record, dict) and record.get("sessionId") == sid


def gemini_session_file(output: str, home: Path) -> Path | None:
    """The session file under ``home`` of the Gemini CLI run whose stdout is ``output``."""
    sid = stream_session_id(output)
    if sid is None:
        return None
    chats = home / ".gemini" / "tmp"
    found = sorted(chats.glob(f"*/chats/session-*{sid[:8]}.json*"))
    for path in found:
        if path.suffix in {".json", ".jsonl"} and path.is_file() and _names_session(path, sid):
            return path
    return None


def stream_thread_id(output: str) -> str | None:
    """The ``thread_id`` of the first ``thread.started`` event of a Codex ``--json`` log.

    Example:
        >>> stream_thread_id('{"type":"thread.started","thread_id":"01a250e6-ce68-7ab0"}')
        '01a250e6-ce68-7ab0'
        >>> stream_thread_id('{"type":"thread.started","thread_id":"../../etc"}') is None
        True
    """
    return _first_event_id(output, "thread.started", "thread_id")


def _rollout_names(path: Path, tid: str) -> bool:
    """Whether the rollout's first record (``session_meta``) names thread ``tid``."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline(_HEAD)
        record = safe_loads(first)
    except (OSError, ValueError):
        return False
    payload = record.get("payload") if isinstance(record, dict) else None
    return isinstance(payload, dict) and payload.get("id") == tid


def codex_rollout_file(output: str, codex_home: Path) -> Path | None:
    """The session file under ``codex_home`` of the Codex run whose stdout is ``output``.

    Example:
        >>> import json, tempfile, pathlib
        >>> home = pathlib.Path(tempfile.mkdtemp())
        >>> day = home / "sessions" / "2026" / "12" / "07"; day.mkdir(parents=True)
        >>> tid = "01a250e6-ce68-7ab0-a67f-307a45cbff32"
        >>> meta = {"type": "session_meta", "payload": {"id": tid}}
        >>> _ = (day / f"rollout-2026-12-07T14-27-13-{tid}.jsonl").write_text(
        ...     json.dumps(meta) + "\\n")
        >>> out = json.dumps({"type": "thread.started", "thread_id": tid})
        >>> codex_rollout_file(out, home).name
        'rollout-2026-12-07T14-27-13-01a250e6-ce68-7ab0-a67f-307a45cbff32.jsonl'
        >>> codex_rollout_file(out.replace("01a2", "ffff"), home) is None
        True
    """
    tid = stream_thread_id(output)
    if tid is None:
        return None
    for path in sorted((codex_home / "sessions").glob(f"*/*/*/rollout-*-{tid}.jsonl")):
        if path.is_file() and not path.is_symlink() and _rollout_names(path, tid):
            return path
    return None


def _pi_folder(cwd: str) -> str:
    """Pi's session folder name for ``cwd`` (its ``getDefaultSessionDir``)."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def _pi_header_cwd(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            record = safe_loads(handle.readline(_HEAD))
    except (OSError, ValueError):
        return None
    if isinstance(record, dict) and record.get("type") == "session":
        cwd = record.get("cwd")
        return cwd if isinstance(cwd, str) else None
    return None


def pi_session_file(workspace: Path, home: Path, env: Mapping[str, str]) -> Path | None:
    """The session file of the Pi run that worked in ``workspace`` (its own copy): the newest
    ``*.jsonl`` in Pi's session folder for it whose header names that folder as its ``cwd``.

    Example:
        >>> import json, tempfile, pathlib
        >>> home = pathlib.Path(tempfile.mkdtemp())
        >>> folder = home / ".pi" / "agent" / "sessions" / "--tmp-s-workspace--"
        >>> folder.mkdir(parents=True)
        >>> head = {"type": "session", "id": "u1", "cwd": "/tmp/s/workspace"}
        >>> _ = (folder / "2026-12-07T10-00-00-000Z_u1.jsonl").write_text(json.dumps(head) + "\\n")
        >>> pi_session_file(pathlib.Path("/tmp/s/workspace"), home, {}).name
        '2026-12-07T10-00-00-000Z_u1.jsonl'
        >>> pi_session_file(pathlib.Path("/tmp/t/workspace"), home, {}) is None
        True
    """
    from earnest.live.agentenv import pi_agent_dir, tilde

    named = env.get("PI_CODING_AGENT_SESSION_DIR")
    cwds = {str(workspace), os.path.realpath(workspace)}
    folders = [tilde(named, home)] if named else []
    folders += [pi_agent_dir(home, env) / "sessions" / _pi_folder(c) for c in sorted(cwds)]
    for folder in folders:
        found = [
            path
            for path in sorted(folder.glob("*.jsonl"))
            if path.is_file() and not path.is_symlink() and _pi_header_cwd(path) in cwds
        ]
        if found:
            return found[-1]
    return None


def qwen_chat_file(output: str, home: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The chat log of the Qwen Code run whose ``stream-json`` stdout is ``output``: under
    ``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else ``home/.qwen`` (absolute paths only).

    Example:
        >>> import json, tempfile, pathlib
        >>> home = pathlib.Path(tempfile.mkdtemp())
        >>> chats = home / ".qwen" / "projects" / "-tmp-w" / "chats"; chats.mkdir(parents=True)
        >>> sid = "d6f3d300-0bab-4356-83e7-8457b6efa259"
        >>> _ = (chats / f"{sid}.jsonl").write_text(json.dumps({"sessionId": sid}) + "\\n")
        >>> out = json.dumps({"type": "system", "subtype": "init", "session_id": sid})
        >>> qwen_chat_file(out, home).name
        'd6f3d300-0bab-4356-83e7-8457b6efa259.jsonl'
        >>> qwen_chat_file(out.replace("d6f3", "ffff"), home) is None
        True
    """
    sid = _first_event_id(output, "system", "session_id", subtype="init")
    if sid is None:
        return None
    named = [
        Path(v).expanduser() for k in ("QWEN_RUNTIME_DIR", "QWEN_HOME") if (v := (env or {}).get(k))
    ]
    root = next((p for p in named if p.is_absolute()), home / ".qwen")
    for path in sorted((root / "projects").glob(f"*/chats/{sid}.jsonl")):
        if path.is_file() and not path.is_symlink() and _names_session(path, sid):
            return path
    return None


def copilot_events_file(
    output: str, home: Path, env: Mapping[str, str] | None = None
) -> Path | None:
    """The session log of the Copilot CLI run whose ``--output-format json`` stdout is
    ``output``: under ``COPILOT_HOME`` (absolute only), else ``home/.copilot``.

    Example:
        >>> import json, tempfile, pathlib
        >>> home = pathlib.Path(tempfile.mkdtemp())
        >>> sid = "79d44e76-993d-4ace-a2b2-d6561773f93f"
        >>> log = home / ".copilot" / "session-state" / sid / "events.jsonl"
        >>> log.parent.mkdir(parents=True)
        >>> start = {"type": "session.start", "data": {"sessionId": sid}}
        >>> _ = log.write_text(json.dumps(start) + "\\n" + '{"type":"session.shutdown"}\\n')
        >>> out = json.dumps({"type": "result", "sessionId": sid, "exitCode": 0})
        >>> copilot_events_file(out, home) == log
        True
        >>> copilot_events_file(out.replace("79d4", "ffff"), home) is None
        True
    """
    sid = _copilot_session_id(output)
    if sid is None:
        return None
    named = (env or {}).get("COPILOT_HOME")
    root = Path(named).expanduser() if named else home / ".copilot"
    if not root.is_absolute():
        root = home / ".copilot"
    path = root / "session-state" / sid / "events.jsonl"
    if not path.is_file() or path.is_symlink() or path.parent.is_symlink():
        return None
    try:
        with path.open("rb") as handle:
            first = handle.readline(_HEAD)
            handle.seek(max(0, path.stat().st_size - _HEAD))
            tail = handle.read()
        record = safe_loads(first)
    except (OSError, ValueError):
        return None
    data = record.get("data") if isinstance(record, dict) else None
    if not (
        isinstance(data, dict)
        and record.get("type") == "session.start"
        and data.get("sessionId") == sid
    ):
        return None
    return path if b'"type":"session.shutdown"' in tail else None


def _copilot_session_id(output: str) -> str | None:
    """The ``sessionId`` of the closing ``result`` event of Copilot's JSONL stdout."""
    for line in reversed(output[-_HEAD:].splitlines()):
        line = line.strip()
        if not line.startswith("{") or '"result"' not in line[:40]:
            continue
        try:
            event = safe_loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or event.get("type") != "result":
            continue
        found = event.get("sessionId")
        return found if isinstance(found, str) and _SESSION_ID.match(found) else None
    return None


def transcript_file(
    preset: str, output: str, home: Path, env: Mapping[str, str] | None = None
) -> Path | None:
    """The transcript file earnest reads instead of the stdout of ``preset``, if any.

    Codex: the session file of the stream's thread under ``CODEX_HOME`` (in ``env``) or
    ``home/.codex``.

    opencode: the session database the child was given (``OPENCODE_DB`` in ``env``, a file of
    the sample's own, so only this sample's session is in it).

    Pi: the session file of the copy ``EARNEST_WORKSPACE`` (in ``env``) names.
    """
    if preset == "gemini":
        return gemini_session_file(output, home)
    if preset == "qwen":
        return qwen_chat_file(output, home, env)
    if preset == "copilot":
        return copilot_events_file(output, home, env)
    if preset == "codex":
        named = (env or {}).get("CODEX_HOME")
        return codex_rollout_file(output, Path(named) if named else home / ".codex")
    if preset == "opencode":
        # Its --format json events carry no exit codes; its session database holds each call.
        named = (env or {}).get("OPENCODE_DB")
        db = Path(named) if named else None
        return db if db is not None and db.is_absolute() and db.is_file() else None
    if preset == "pi":
        workspace = (env or {}).get("EARNEST_WORKSPACE")
        return pi_session_file(Path(workspace), home, env or {}) if workspace else None
    return None


__all__ = [
    "codex_rollout_file",
    "copilot_events_file",
    "gemini_session_file",
    "pi_session_file",
    "qwen_chat_file",
    "stream_session_id",
    "stream_thread_id",
    "transcript_file",
]
