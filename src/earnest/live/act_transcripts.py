"""The agent CLI's own transcript file of an acted-out sample, when its stdout says less.

Gemini CLI's ``stream-json`` events report a shell call as ``"status": "success"`` whatever
the command's exit code (the event carries the display text, not the ``Exit Code: N`` trailer
the model was sent), so a failed ``git merge`` would read as a success. Its session file —
``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`` (``.json`` before 0.6x), named by
the ``session_id`` of the stream's ``init`` event — holds each call's full result, and
:func:`earnest.live.act.behaviour` reads that one with the ``gemini-cli-session`` reader.
Claude Code's ``stream-json`` and Codex's ``--json`` events already carry each call's outcome:
their stdout is the trajectory.

The file is found, never guessed: the session id must look like one, and the file's first
record must name the same id.

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
import re
from collections.abc import Mapping
from pathlib import Path

from earnest.safejson import loads as safe_loads

_SESSION_ID = re.compile(r"^[0-9a-fA-F][0-9a-fA-F-]{7,63}$")
_HEAD = 64 * 1024  # the init event is the stream's first line; the id record the file's first


def stream_session_id(output: str) -> str | None:
    """The ``session_id`` of the first ``init`` event of a Gemini CLI ``stream-json`` log."""
    for line in output[:_HEAD].splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = safe_loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "init":
            sid = event.get("session_id")
            return sid if isinstance(sid, str) and _SESSION_ID.match(sid) else None
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


def transcript_file(
    preset: str, output: str, home: Path, env: Mapping[str, str] | None = None
) -> Path | None:
    """The transcript file earnest reads instead of the stdout of ``preset``, if any.

    opencode: the session database the child was given (``OPENCODE_DB`` in ``env``, a file of
    the sample's own, so only this sample's session is in it).
    """
    if preset == "gemini":
        return gemini_session_file(output, home)
    if preset == "opencode":
        # Its --format json events carry no exit codes; its session database holds each call.
        named = (env or {}).get("OPENCODE_DB")
        db = Path(named) if named else None
        return db if db is not None and db.is_absolute() and db.is_file() else None
    return None


__all__ = ["gemini_session_file", "stream_session_id", "transcript_file"]
