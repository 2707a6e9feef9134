"""The current run of a Claude Code transcript, found by reading the file backwards.

A stop hook needs only the run: everything since the last real user prompt. Rather than
parse a long transcript from byte 0, :func:`find_run_start` scans it from the end, in
blocks, for the last line that is a real prompt on the main chain — judged by the reader's
own :func:`~earnest.trajectory.readers.claude_code.user_prompt`, never a copy — and
:func:`read_claude_run_tail` reads forward from there with
:func:`~earnest.trajectory.readers.claude_code.read_claude_code_from`.

Starting at the prompt gives the reader the state a full read has there, because a
prompt clears the run (``run_only``). What could survive the prompt is handled:

- a slash command's expansion (a meta record) is a prompt only right after the command's
  own record, so reading starts at the command's record;
- lines sharing ``message.id`` are merged by a reader that remembers the last
  :data:`~earnest.trajectory.readers.claude_code.RECENT_TURNS` ids: the scan names the
  ids a full read would remember at the start (:meth:`ClaudeCodeSession.preload_turns`),
  and a run that continues one of them is read again from byte 0;
- a sidechain prompt starts a run only in a file with no main chain (a subagent's own
  transcript), which the scan cannot know without reading it all: it never starts at one,
  and such a file is read from byte 0;
- the reader must agree: if the run it finds does not begin at the scan's prompt or
  later, the file is read again from byte 0.

So the result equals a full read's run (request, tool calls, final message, the prompt's
byte offset); only counts kept for metadata (turns, models, images) cover the lines read.

Example:
    >>> import json, pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> def user(text):
    ...     return {"type": "user", "message": {"role": "user", "content": text}}
    >>> def say(mid, text):
    ...     return {"type": "assistant", "message": {"id": mid, "content": [
    ...         {"type": "text", "text": text}]}}
    >>> lines = [user("first"), say("m1", "one"), user("second"), say("m2", "two")]
    >>> _ = p.write_text("".join(json.dumps(x) + "\\n" for x in lines))
    >>> start = find_run_start(p)
    >>> start.prompt == len(json.dumps(lines[0]) + json.dumps(lines[1])) + 2
    True
    >>> session, offset = read_claude_run_tail(p)
    >>> t = session.trajectory()
    >>> t.user_request, t.final_message, t.metadata["run_offset"] == start.prompt
    ('second', 'two', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from earnest.trajectory.readers.claude_code import (
    RECENT_TURNS,
    ClaudeCodeSession,
    command_flag,
    is_sidechain,
    read_claude_code_from,
    skippable,
    turn_key,
    user_prompt,
)
from earnest.trajectory.readers.lines import lines_backward as _lines_backward
from earnest.trajectory.readers.lines import parse_line
from earnest.trajectory.report import ReadReport

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

BLOCK = 256 * 1024
"""Bytes read per step of the backward scan."""


@dataclass(frozen=True)
class RunStart:
    """Where to start reading for the current run.

    ``offset`` is where reading starts (the prompt's line, or the slash command's record
    before it), ``prompt`` the offset of the prompt's line itself, and ``recent`` the
    message ids a full read would remember at ``offset``, oldest first. ``offset == 0``
    with ``prompt is None`` means no usable prompt was found: read from the start.
    """

    offset: int
    prompt: int | None
    recent: tuple[str, ...] = ()


def _record(raw: bytes, kind: str, name: str, report: ReadReport) -> dict[str, Any] | None:
    """The line's record if its type is ``kind``, parsed exactly as the reader parses it."""
    if f'"{kind}"'.encode() not in raw:  # cheap: most lines cannot be of this kind
        return None
    obj = parse_line(raw, name, None, report, skip=skippable)
    return obj if obj is not None and obj.get("type") == kind else None


def find_run_start(path: str | Path, *, final: bool = False, block: int = BLOCK) -> RunStart:
    """Scan ``path`` backwards for where its current run begins (see the module docstring).

    Only whole lines count unless ``final`` (as in ``read_claude_code_from``).
    """
    name = str(path)
    report = ReadReport()  # the forward read reports bad lines; the scan only skips them
    with open(path, "rb") as handle:
        lines = _lines_backward(handle, handle.seek(0, 2), block)
        start: int | None = None
        prompt: int | None = None
        meta: int | None = None  # a slash command's expansion, if the command precedes it
        for offset, raw in lines:
            if not final and not raw.endswith(b"\n"):
                continue  # half-written: the forward read leaves it for next time
            obj = _record(raw, "user", name, report)
            if obj is None:
                continue
            if meta is not None:
                flag = command_flag(obj)
                if flag is None:
                    continue  # a record the reader passes over: the flag stays as it was
                if flag:
                    start, prompt = offset, meta
                    break
                meta = None  # not after a command: the expansion was noise
            if is_sidechain(obj):
                continue
            if user_prompt(obj) is not None:
                start = prompt = offset
                break
            if user_prompt(obj, after_command=True) is not None:
                meta = offset
        if start is None or start == 0:
            return RunStart(0, prompt)
        recent: list[str] = []
        for _, raw in lines:
            obj = _record(raw, "assistant", name, report)
            key = turn_key(obj) if obj is not None else None
            if key is not None and key not in recent:
                recent.append(key)
                if len(recent) == RECENT_TURNS:
                    break
        return RunStart(start, prompt, tuple(reversed(recent)))


def read_claude_run_tail(
    path: str | Path, *, final: bool = False, report: ReadReport | None = None
) -> tuple[ClaudeCodeSession, int]:
    """Read only the current run of ``path``; returns the session and the offset read to.

    The session is a ``run_only`` :class:`ClaudeCodeSession`: pass both back to
    ``read_claude_code_from`` to continue as the file grows (check
    ``session.continues_earlier`` after each read; when it is set, read from byte 0).
    When the tail cannot be used, ``report`` may hold the tail's warnings twice.
    """
    session, offset, _ = read_claude_run_from(path, None, final=final, report=report)
    return session, offset


def read_claude_run_from(
    path: str | Path,
    start: RunStart | None,
    *,
    final: bool = False,
    report: ReadReport | None = None,
) -> tuple[ClaudeCodeSession, int, RunStart | None]:
    """As :func:`read_claude_run_tail`, from ``start`` when one is given (a run start found
    earlier in the same, since only appended-to, file: the backward scan is skipped); also
    returns the start that held, or None when the file was read from byte 0.

    Reading forward from an earlier run's start still gives the current run (a prompt clears
    the run), so a saved start stays usable while the file only grows.
    """
    found = start if start is not None else find_run_start(path, final=final)
    if found.offset > 0 and found.prompt is not None:
        session = ClaudeCodeSession(path, report=report, run_only=True)
        session.preload_turns(found.recent)
        session, offset = read_claude_code_from(path, found.offset, session, final=final)
        run_offset = session.builder.metadata.get("run_offset")
        if (
            not session.continues_earlier
            and isinstance(run_offset, int)
            and run_offset >= found.prompt
        ):
            return session, offset, found
    session, offset = read_claude_code_from(path, 0, final=final, run_only=True, report=report)
    return session, offset, None


__all__ = ["BLOCK", "RunStart", "find_run_start", "read_claude_run_from", "read_claude_run_tail"]
